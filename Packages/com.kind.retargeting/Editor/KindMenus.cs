// Tools > Kind Retargeting menu items: rebuild the bundle with Node, and write link.xml into Assets.
using System;
using System.Diagnostics;
using System.IO;
using UnityEditor;
using UnityEngine;
using Debug = UnityEngine.Debug;

namespace KindRetargeting.Editor
{
    public static class KindMenus
    {
        /// <summary>The repository (Unity project) root: the parent of Assets.</summary>
        static string ProjectRoot { get { return Path.GetDirectoryName(Application.dataPath); } }

        /// <summary>
        /// Runs `node tools/build.mjs unity` in the project root (needs Node 20 on PATH and `npm ci` done
        /// in TsProject). The bundle is written to the package's Runtime/Resources/kind-retargeting/main.mjs;
        /// in Play mode KindRuntime sees the new file and hot-reloads it.
        /// </summary>
        [MenuItem("Tools/Kind Retargeting/Rebuild Bundle")]
        public static void RebuildBundle()
        {
            string script = Path.Combine(ProjectRoot, "tools/build.mjs");
            if (!File.Exists(script)) { Debug.LogError("KindRetargeting: " + script + " not found (the bundle is built from the repository's TsProject)"); return; }
            var psi = new ProcessStartInfo("node", "tools/build.mjs unity")
            {
                WorkingDirectory = ProjectRoot,
                UseShellExecute = false,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                CreateNoWindow = true,
            };
            try
            {
                using (Process p = Process.Start(psi))
                {
                    string stdout = p.StandardOutput.ReadToEnd();
                    string stderr = p.StandardError.ReadToEnd();
                    p.WaitForExit();
                    if (p.ExitCode == 0) Debug.Log("KindRetargeting: bundle rebuilt.\n" + stdout + stderr);
                    else Debug.LogError("KindRetargeting: bundle build failed (exit " + p.ExitCode + ").\n" + stdout + stderr);
                }
            }
            catch (Exception e)
            {
                Debug.LogError("KindRetargeting: could not run node (is Node 20 on PATH?): " + e.Message);
                return;
            }
            AssetDatabase.Refresh();
        }

        /// <summary>The link.xml that keeps the bridge and PuerTS types in IL2CPP players (Unity reads link.xml only under Assets).</summary>
        public const string LinkXml =
            "<!-- Written by Tools/Kind Retargeting/Write link.xml. Keeps the types PuerTS reaches by reflection. -->\n" +
            "<linker>\n" +
            "  <assembly fullname=\"Kind.Retargeting.Runtime\" preserve=\"all\"/>\n" +
            "  <assembly fullname=\"com.tencent.puerts.core\" preserve=\"all\"/>\n" +
            "  <assembly fullname=\"mscorlib\">\n" +
            "    <type fullname=\"System.Func`1\" preserve=\"all\"/>\n" +
            "    <type fullname=\"System.Func`2\" preserve=\"all\"/>\n" +
            "    <type fullname=\"System.Func`3\" preserve=\"all\"/>\n" +
            "    <type fullname=\"System.Func`4\" preserve=\"all\"/>\n" +
            "    <type fullname=\"System.Func`5\" preserve=\"all\"/>\n" +
            "    <type fullname=\"System.Action`1\" preserve=\"all\"/>\n" +
            "  </assembly>\n" +
            "</linker>\n";

        [MenuItem("Tools/Kind Retargeting/Write link.xml into Assets")]
        public static void WriteLinkXml()
        {
            string path = Path.Combine(Application.dataPath, "KindRetargeting/link.xml");
            KindFiles.WriteAtomically(path, LinkXml);
            AssetDatabase.Refresh();
            Debug.Log("KindRetargeting: wrote " + path);
        }
    }
}
