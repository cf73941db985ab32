// Where the Editor reads the bundle from (issue 21 part 6: hot reload when the package is installed by git
// URL, whose folder in Library/PackageCache is read-only). Unity-free (System.IO only), so the tests run it
// under plain Mono against the folder tools/watch.mjs --out writes (TsProject/test/unity.codeHumanoid.mono.test.ts).
using System.IO;

namespace KindRetargeting
{
    /// <summary>The Editor's bundle folder: a scene's choice, the project's choice, or the package's Resources.</summary>
    public static class KindBundleFolder
    {
        /// <summary>The package's Resources folder as the Editor's System.IO sees it (Unity resolves "Packages/&lt;name&gt;/..." wherever the package is installed; Manual: "Accessing package assets").</summary>
        public const string PackageResources = "Packages/com.kind.retargeting/Runtime/Resources";

        /// <summary>
        /// The folder holding kind-retargeting/main.mjs: <paramref name="componentFolder"/> (KindRuntime.editorBundleFolder)
        /// when set, else <paramref name="projectFolder"/> (the project's Hot Reload Bundle Folder) when set, else
        /// <see cref="PackageResources"/>; made absolute against the current directory (the project folder in the Editor).
        /// </summary>
        public static string Resolve(string componentFolder, string projectFolder)
        {
            if (!string.IsNullOrEmpty(componentFolder)) return Path.GetFullPath(componentFolder);
            if (!string.IsNullOrEmpty(projectFolder)) return Path.GetFullPath(projectFolder);
            return Path.GetFullPath(PackageResources);
        }

        /// <summary>The bundle file in <paramref name="folder"/>: &lt;folder&gt;/kind-retargeting/main.mjs (what `node tools/watch.mjs --out &lt;folder&gt;` writes).</summary>
        public static string BundleFile(string folder)
        {
            return Path.Combine(Path.Combine(folder, "kind-retargeting"), "main.mjs");
        }
    }
}
