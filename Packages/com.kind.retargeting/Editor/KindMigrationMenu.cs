// Tools > Kind Retargeting > Migrate from KindRetargeting: points the components of scenes and prefabs built
// with the original KindRetargeting scripts at this package's scripts (the text work is KindMigration.cs).
using System;
using System.IO;
using UnityEditor;
using UnityEngine;

namespace KindRetargeting.Editor
{
    public static class KindMigrationMenu
    {
        /// <summary>This package's folder on disk (Unity resolves "Packages/&lt;name&gt;" for embedded and cached packages alike).</summary>
        public const string PackagePath = "Packages/com.kind.retargeting";

        [MenuItem("Tools/Kind Retargeting/Migrate from KindRetargeting")]
        public static void Migrate()
        {
            string projectRoot = Path.GetDirectoryName(Application.dataPath);
            string old = EditorUtility.OpenFolderPanel("Folder of the original KindRetargeting scripts (with their .meta files)", Application.dataPath, "KindRetargeting");
            if (string.IsNullOrEmpty(old)) return;
            string package = Path.GetFullPath(PackagePath);
            if (!Directory.Exists(package)) { Debug.LogError("KindRetargeting: package folder not found: " + package); return; }
            if (Path.GetFullPath(old).TrimEnd('/', '\\') == package.TrimEnd('/', '\\')) { Debug.LogError("KindRetargeting: pick the ORIGINAL scripts' folder, not this package's"); return; }
            if (!EditorUtility.DisplayDialog("Migrate from KindRetargeting",
                    "Save open scenes first. Every scene and prefab under Assets that uses the scripts in\n" + old +
                    "\nis pointed at this package's scripts of the same name; each changed file is backed up under KindMigrationBackup-<time> in the project folder.",
                    "Migrate"))
                return;
            string stamp = KindMigration.Stamp(DateTime.UtcNow);
            string report;
            bool problems;
            try
            {
                var reports = KindMigration.MigrateProject(projectRoot, old, package, stamp);
                problems = KindMigration.HasProblems(reports);
                report = KindMigration.Format(reports);
            }
            catch (Exception e)
            {
                Debug.LogError("KindRetargeting: migration failed: " + e);
                return;
            }
            if (problems) Debug.LogError(report); else Debug.Log(report);
            AssetDatabase.Refresh();
            EditorUtility.DisplayDialog("Migrate from KindRetargeting", report.Length > 2000 ? report.Substring(0, 2000) + "\n... (full report in the Console)" : report, "OK");
        }
    }
}
