// Where a character's settings file lives, and saving it atomically. Unity-free (System only), so it is
// compiled and run under plain Mono by the tests (test/unity.settings.mono.test.ts).
using System;
using System.IO;
using System.Text;

namespace KindRetargeting
{
    /// <summary>The desktop platforms the settings location distinguishes; Other: mobile, web, consoles.</summary>
    public enum KindSettingsPlatform { Windows, MacOS, Linux, Other }

    /// <summary>
    /// The settings file location, as the original KindRetargeting puts it:
    /// <list type="bullet">
    /// <item>Windows: <c>%LocalAppData%\Unity\{companyName}\{productName}\RetargetingSettings\{target}_settings.json</c>
    /// (%LocalAppData%: Environment.SpecialFolder.LocalApplicationData, e.g. C:\Users\me\AppData\Local);</item>
    /// <item>macOS: <c>~/Library/Application Support/Unity/{companyName}/{productName}/RetargetingSettings/{target}_settings.json</c>;</item>
    /// <item>Linux: <c>$XDG_DATA_HOME/Unity/{companyName}/{productName}/RetargetingSettings/{target}_settings.json</c>,
    /// <c>$XDG_DATA_HOME</c> defaulting to <c>~/.local/share</c> (what LocalApplicationData is under Mono on Linux);</item>
    /// <item>anything else (Android, iOS, WebGL, consoles, no local app data folder):
    /// <c>{Application.persistentDataPath}/RetargetingSettings/{target}_settings.json</c>.</item>
    /// </list>
    /// Characters a file name cannot hold (Path.GetInvalidFileNameChars plus the Windows set
    /// <c>\ / : * ? " &lt; &gt; |</c>) become '_' in the company, product and target names; an empty name is "_".
    /// </summary>
    public static class KindSettingsFile
    {
        /// <summary>The folder under the product folder.</summary>
        public const string FolderName = "RetargetingSettings";
        /// <summary>The file name's suffix after the target's name.</summary>
        public const string FileSuffix = "_settings.json";

        const string WindowsInvalid = "\\/:*?\"<>|";

        /// <summary>A name made safe for one path segment (see the class docs).</summary>
        public static string SafeName(string name)
        {
            if (string.IsNullOrEmpty(name)) return "_";
            var sb = new StringBuilder(name.Length);
            char[] invalid = Path.GetInvalidFileNameChars();
            foreach (char c in name)
                sb.Append(c < 32 || WindowsInvalid.IndexOf(c) >= 0 || Array.IndexOf(invalid, c) >= 0 ? '_' : c);
            string s = sb.ToString().Trim();
            return s.Length == 0 || s == "." || s == ".." ? "_" : s;
        }

        /// <summary>
        /// The settings file path for one platform (pure: every input is a parameter, nothing is read from
        /// the machine). <paramref name="localAppData"/>: Windows' %LocalAppData%; <paramref name="home"/>:
        /// the user's home (macOS, Linux); <paramref name="xdgDataHome"/>: $XDG_DATA_HOME or null/empty;
        /// <paramref name="persistentDataPath"/>: Unity's, for Other (and when a desktop folder is unknown).
        /// Windows paths are joined with '\', the others with '/', whatever machine runs this.
        /// </summary>
        public static string Compose(KindSettingsPlatform platform, string localAppData, string home, string xdgDataHome,
            string persistentDataPath, string companyName, string productName, string targetName)
        {
            string file = SafeName(targetName) + FileSuffix;
            string company = SafeName(companyName), product = SafeName(productName);
            switch (platform)
            {
                case KindSettingsPlatform.Windows:
                    if (!string.IsNullOrEmpty(localAppData))
                        return Join('\\', localAppData, "Unity", company, product, FolderName, file);
                    break;
                case KindSettingsPlatform.MacOS:
                    if (!string.IsNullOrEmpty(home))
                        return Join('/', home, "Library", "Application Support", "Unity", company, product, FolderName, file);
                    break;
                case KindSettingsPlatform.Linux:
                    string data = !string.IsNullOrEmpty(xdgDataHome) ? xdgDataHome
                        : !string.IsNullOrEmpty(home) ? Join('/', home, ".local", "share") : null;
                    if (data != null) return Join('/', data, "Unity", company, product, FolderName, file);
                    break;
            }
            if (string.IsNullOrEmpty(persistentDataPath))
                throw new ArgumentException("KindSettingsFile: no folder for the settings on " + platform + " (no local app data, home or persistentDataPath)");
            return Join('/', persistentDataPath, FolderName, file);
        }

        /// <summary>
        /// <see cref="Compose"/> with this machine's folders: %LocalAppData% from
        /// Environment.SpecialFolder.LocalApplicationData, HOME and XDG_DATA_HOME from the environment.
        /// </summary>
        public static string ForThisMachine(KindSettingsPlatform platform, string persistentDataPath, string companyName, string productName, string targetName)
        {
            return Compose(platform,
                Environment.GetFolderPath(Environment.SpecialFolder.LocalApplicationData),
                Environment.GetEnvironmentVariable("HOME"),
                Environment.GetEnvironmentVariable("XDG_DATA_HOME"),
                persistentDataPath, companyName, productName, targetName);
        }

        static string Join(char sep, params string[] parts)
        {
            var sb = new StringBuilder();
            for (int i = 0; i < parts.Length; i++)
            {
                string p = parts[i];
                if (i > 0)
                {
                    if (sb.Length == 0 || (sb[sb.Length - 1] != '/' && sb[sb.Length - 1] != '\\')) sb.Append(sep);
                    p = p.TrimStart('/', '\\');
                }
                sb.Append(p);
            }
            return sb.ToString();
        }
    }

    /// <summary>File helpers for the shells.</summary>
    public static class KindFiles
    {
        /// <summary>
        /// Writes UTF-8 text to "&lt;path&gt;.tmp" and renames it over <paramref name="path"/> (File.Replace when it
        /// exists), creating the folder. On any failure the temporary file is removed, the previous file is
        /// left as it was, and the exception is rethrown.
        /// </summary>
        public static void WriteAtomically(string path, string text)
        {
            string dir = Path.GetDirectoryName(Path.GetFullPath(path));
            if (!string.IsNullOrEmpty(dir)) Directory.CreateDirectory(dir);
            string tmp = path + ".tmp";
            try
            {
                File.WriteAllText(tmp, text, new UTF8Encoding(false));
                if (File.Exists(path)) File.Replace(tmp, path, null);
                else File.Move(tmp, path);
            }
            catch
            {
                try { if (File.Exists(tmp)) File.Delete(tmp); } catch (IOException) { } catch (UnauthorizedAccessException) { }
                throw;
            }
        }
    }

    /// <summary>
    /// Saves one character's settings: asks <c>export</c> for the settings JSON (null: nothing to save,
    /// e.g. no hub yet), then writes it atomically (<see cref="KindFiles.WriteAtomically"/>) to the path
    /// <c>path</c> gives. Never throws: a failure is kept in <see cref="LastError"/> and the previous file
    /// stays intact. CustomRetargetingScript calls <see cref="Save"/> from its menu/API and from
    /// Application.quitting (auto-save on quit).
    /// </summary>
    public sealed class KindSettingsSaver
    {
        readonly Func<string> export;
        readonly Func<string> path;

        /// <summary>The last failure's message, or null after a successful save.</summary>
        public string LastError { get; private set; }
        /// <summary>The path of the last successful save, or null.</summary>
        public string LastSaved { get; private set; }

        public KindSettingsSaver(Func<string> export, Func<string> path)
        {
            if (export == null) throw new ArgumentNullException("export");
            if (path == null) throw new ArgumentNullException("path");
            this.export = export;
            this.path = path;
        }

        /// <summary>Exports and writes; true on success (see the class docs).</summary>
        public bool Save()
        {
            string file = null;
            try
            {
                file = path();
                string text = export();
                if (text == null) { LastError = "no settings to save (no hub)"; return false; }
                KindFiles.WriteAtomically(file, text);
                LastError = null;
                LastSaved = file;
                return true;
            }
            catch (Exception e)
            {
                LastError = "could not save settings" + (file != null ? " to " + file : "") + ": " + e.Message;
                return false;
            }
        }
    }
}
