// The project's hot-reload bundle folder (issue 21 part 6): with the package installed by git URL its folder
// in Library/PackageCache is read-only, so `node tools/watch.mjs --out <folder>` (run in a clone of the
// repository) writes the bundle to a folder the user chooses, and KindRuntime reads and watches
// <folder>/kind-retargeting/main.mjs there. The choice is kept in EditorPrefs under a key naming this
// project, and handed to KindRuntime.ProjectBundleFolder whenever scripts load.
using UnityEditor;
using UnityEngine;

namespace KindRetargeting.Editor
{
    [InitializeOnLoad]
    public static class KindBundleFolderSetting
    {
        /// <summary>The EditorPrefs key of this project's folder (EditorPrefs are per machine, shared by every project).</summary>
        public static string Key { get { return "KindRetargeting.BundleFolder:" + Application.dataPath; } }

        static KindBundleFolderSetting() { KindRuntime.ProjectBundleFolder = EditorPrefs.GetString(Key, ""); }

        /// <summary>This project's folder, or "" for the package's bundle.</summary>
        public static string Folder
        {
            get { return EditorPrefs.GetString(Key, ""); }
            set
            {
                if (string.IsNullOrEmpty(value)) EditorPrefs.DeleteKey(Key);
                else EditorPrefs.SetString(Key, value);
                KindRuntime.ProjectBundleFolder = value ?? "";
            }
        }

        [MenuItem("Tools/Kind Retargeting/Hot Reload Bundle Folder/Choose...")]
        public static void Choose()
        {
            string chosen = EditorUtility.OpenFolderPanel("Folder the watcher writes the bundle to (it gets kind-retargeting/main.mjs)", Folder, "");
            if (string.IsNullOrEmpty(chosen)) return;
            Folder = chosen;
            Debug.Log("KindRetargeting: hot-reload bundle folder: " + chosen + "\nIn a clone of the repository (with `npm ci` done in TsProject) run:\n  node tools/watch.mjs --out \"" + chosen + "\"\n" +
                "KindRuntime reads " + chosen + "/kind-retargeting/main.mjs once it exists (from the next Play; a scene's KindRuntime.editorBundleFolder, when set, wins).");
        }

        [MenuItem("Tools/Kind Retargeting/Hot Reload Bundle Folder/Use the Package's Bundle")]
        public static void Clear()
        {
            Folder = "";
            Debug.Log("KindRetargeting: the package's bundle (Runtime/Resources) is used again from the next Play.");
        }

        [MenuItem("Tools/Kind Retargeting/Hot Reload Bundle Folder/Show")]
        public static void Show()
        {
            string f = Folder;
            Debug.Log(string.IsNullOrEmpty(f)
                ? "KindRetargeting: no hot-reload bundle folder; the package's bundle runs (Runtime/Resources)."
                : "KindRetargeting: hot-reload bundle folder " + f + " (bundle file " + System.IO.Path.Combine(f, "kind-retargeting/main.mjs") + (System.IO.File.Exists(System.IO.Path.Combine(f, "kind-retargeting/main.mjs")) ? ", present)" : ", not there yet: the package's bundle runs until it is)"));
        }
    }
}
