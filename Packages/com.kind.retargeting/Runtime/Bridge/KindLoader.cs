// The module loader given to the PuerTS JsEnv.
// PuerTS 2.x: `new JsEnv(ILoader loader, int debugPort = -1)`; the loader answers FileExists/ReadFile
// for every specifier, including PuerTS's own "puerts/*.mjs" (Tencent/puerts
// unity/Assets/core/upm/Runtime/Src/Loader.cs). Loaders used in IL2CPP players need [Preserve].
using System;
using System.IO;
using Puerts;
using UnityEngine.Scripting;

namespace KindRetargeting
{
    /// <summary>
    /// Reads "kind-retargeting/..." from a folder on disk when <see cref="DiskRoot"/> is set (the Editor:
    /// the esbuild output, for hot reload without a Resources reimport), and everything else — and
    /// everything in players — through PuerTS's DefaultLoader (Resources.Load).
    /// </summary>
    [Preserve]
    public sealed class KindLoader : ILoader, IModuleChecker
    {
        /// <summary>The module prefix of the bundle.</summary>
        public const string Prefix = "kind-retargeting/";
        /// <summary>The bundle's specifier, as passed to ExecuteModule.</summary>
        public const string BundleSpecifier = "kind-retargeting/main.mjs";

        readonly DefaultLoader fallback = new DefaultLoader();

        /// <summary>
        /// Folder holding "kind-retargeting/main.mjs" (the package's Runtime/Resources folder on disk, or a
        /// build output folder), or null to read only through Resources.
        /// </summary>
        public string DiskRoot { get; private set; }

        [Preserve]
        public KindLoader() { }

        [Preserve]
        public KindLoader(string diskRoot) { DiskRoot = string.IsNullOrEmpty(diskRoot) ? null : diskRoot; }

        /// <summary>Absolute path of a specifier under <see cref="DiskRoot"/>, or null.</summary>
        public string DiskPath(string filepath)
        {
            if (DiskRoot == null || !filepath.StartsWith(Prefix, StringComparison.Ordinal)) return null;
            return Path.Combine(DiskRoot, filepath.Replace('/', Path.DirectorySeparatorChar));
        }

        [Preserve]
        public bool FileExists(string filepath)
        {
            string disk = DiskPath(filepath);
            if (disk != null && File.Exists(disk)) return true;
            return fallback.FileExists(filepath);
        }

        [Preserve]
        public string ReadFile(string filepath, out string debugpath)
        {
            string disk = DiskPath(filepath);
            if (disk != null && File.Exists(disk))
            {
                debugpath = disk;
                return File.ReadAllText(disk);
            }
            return fallback.ReadFile(filepath, out debugpath);
        }

        [Preserve]
        public bool IsESM(string filepath)
        {
            return filepath.Length >= 4 && !filepath.EndsWith(".cjs", StringComparison.Ordinal);
        }
    }
}
