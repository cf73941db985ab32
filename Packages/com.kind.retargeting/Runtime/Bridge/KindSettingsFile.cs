// Where a character's settings file lives, reading it (this package's format or the original
// KindRetargeting's JsonUtility file), and saving it atomically without ever losing what the file held.
// Unity-free (System and KindJson only), so it is compiled and run under plain Mono by the tests
// (test/unity.settings.mono.test.ts).
using System;
using System.Collections.Generic;
using System.Globalization;
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
        public static void WriteAtomically(string path, string text) { WriteAtomically(path, text, null); }

        /// <summary>
        /// As <see cref="WriteAtomically(string, string)"/>; <paramref name="beforeRename"/> (may be null) runs
        /// after the temporary file is written in full and before it is renamed into place (used to move an
        /// unreadable previous file aside only once the new text is safely on disk).
        /// </summary>
        public static void WriteAtomically(string path, string text, Action beforeRename)
        {
            string dir = Path.GetDirectoryName(Path.GetFullPath(path));
            if (!string.IsNullOrEmpty(dir)) Directory.CreateDirectory(dir);
            string tmp = path + ".tmp";
            try
            {
                File.WriteAllText(tmp, text, new UTF8Encoding(false));
                if (beforeRename != null) beforeRename();
                if (File.Exists(path)) File.Replace(tmp, path, null);
                else File.Move(tmp, path);
            }
            catch
            {
                try { if (File.Exists(tmp)) File.Delete(tmp); } catch (IOException) { } catch (UnauthorizedAccessException) { }
                throw;
            }
        }

        /// <summary>
        /// The name an unreadable settings file is moved to: <c>{name}.unreadable-{yyyyMMdd-HHmmss}.json</c>
        /// next to it (<c>Mia_settings.json</c> becomes <c>Mia_settings.unreadable-20261202-103000.json</c>),
        /// with "-2", "-3", ... added when that name is taken. <paramref name="utc"/>: the time in the name.
        /// </summary>
        public static string UnreadableName(string path, DateTime utc) { return AsideName(path, "unreadable", utc); }

        /// <summary>
        /// <c>{name}.{tag}-{yyyyMMdd-HHmmss}.json</c> next to <paramref name="path"/>, with "-2", "-3", ... added
        /// when that name is taken (an existing file is never the answer).
        /// </summary>
        public static string AsideName(string path, string tag, DateTime utc)
        {
            string dir = Path.GetDirectoryName(path) ?? "";
            string stem = Path.GetFileNameWithoutExtension(path) + "." + tag + "-" + utc.ToString("yyyyMMdd-HHmmss", CultureInfo.InvariantCulture);
            string candidate = Path.Combine(dir, stem + ".json");
            for (int n = 2; File.Exists(candidate) || Directory.Exists(candidate); n++)
                candidate = Path.Combine(dir, stem + "-" + n + ".json");
            return candidate;
        }

        /// <summary>
        /// Copies <paramref name="path"/> to <c>{name}.original-{yyyyMMdd-HHmmss}.json</c> (<see cref="AsideName"/>;
        /// never over an existing file: File.Copy without overwrite); returns the copy's path. The backup
        /// <see cref="KindSettingsSaver"/> makes before the first save that changes a value of a file written by
        /// the original KindRetargeting or not loaded in this session.
        /// </summary>
        public static string CopyAside(string path, DateTime utc)
        {
            string to = AsideName(path, "original", utc);
            File.Copy(path, to, false);
            return to;
        }

        /// <summary>Moves <paramref name="path"/> to <see cref="UnreadableName"/>; returns the new path.</summary>
        public static string MoveAside(string path, DateTime utc)
        {
            string to = UnreadableName(path, utc);
            File.Move(path, to);
            return to;
        }
    }

    /// <summary>What reading a settings file found: its format, what was imported, what was not.</summary>
    public sealed class KindSettingsReport
    {
        /// <summary>"kind" (this package's format, src/rig/settings.ts), "original" (the original
        /// KindRetargeting's JsonUtility file) or "unreadable".</summary>
        public string Format;
        /// <summary>One line per value taken: "footFrontBackOffset = 0.05 -> footOffsets.left/right.frontBack".</summary>
        public readonly List<string> Imported = new List<string>();
        /// <summary>One line per member not taken, with the reason; these stay in the file on save (unless set here).</summary>
        public readonly List<string> NotImported = new List<string>();
        /// <summary>Why the file cannot be read (Format "unreadable"), else null.</summary>
        public string Problem;
        /// <summary>Where an unreadable file was moved (set by the caller that moved it), else null.</summary>
        public string MovedTo;

        /// <summary>The one Console line: format, imported, not imported (or the problem and the backup).</summary>
        public string Summary(string path)
        {
            var sb = new StringBuilder();
            if (Format == "unreadable")
            {
                sb.Append("settings file ").Append(path).Append(" cannot be read (").Append(Problem).Append(')');
                if (MovedTo != null) sb.Append("; moved aside to ").Append(MovedTo).Append(" (nothing is lost), the next save writes a new file");
                return sb.ToString();
            }
            sb.Append("settings file ").Append(path).Append(Format == "original" ? " (the original KindRetargeting's format)" : " (this package's format)");
            sb.Append(": imported ").Append(Imported.Count == 0 ? "nothing" : string.Join("; ", Imported.ToArray()));
            sb.Append(". Not imported (kept in the file as it is when saved, unless set here): ").Append(NotImported.Count == 0 ? "none" : string.Join("; ", NotImported.ToArray()));
            return sb.ToString();
        }
    }

    /// <summary>A settings file read by <see cref="KindSettingsImport.Read"/>.</summary>
    public sealed class KindSettingsRead
    {
        /// <summary>The settings in this package's format for applySettings (null when unreadable).</summary>
        public string SettingsJson;
        /// <summary>What was imported and what was not.</summary>
        public KindSettingsReport Report;
        /// <summary>
        /// For every member of the file that maps onto a setting (the original's footFrontBackOffset ...
        /// headRotationOffsetZ, and floorHeight, avatarScale, headScale, initialHipsHeight, chairSeatOffset):
        /// the value this package's setting has after the load (null: none, e.g. initialHipsHeight not
        /// measured). <see cref="KindSettingsImport.MergeForSave(string, string, Dictionary{string, double?})"/>
        /// keeps the file's own value of such a member while this package's setting still has this value
        /// (the user has not set it here), so a value that was not imported (out of range) is never lost.
        /// Null when unreadable.
        /// </summary>
        public Dictionary<string, double?> Baseline;
    }

    /// <summary>
    /// What one component knows about its settings files in this session: the files it loaded or saved
    /// (with <see cref="KindSettingsRead.Baseline"/>, renewed on each save) and the files it has backed up
    /// once. Given to <see cref="KindSettingsLoader.Load(string, Func{string}, Func{string, string}, DateTime, out string, KindSettingsSession)"/>
    /// and to <see cref="KindSettingsSaver"/>.
    /// </summary>
    public sealed class KindSettingsSession
    {
        readonly Dictionary<string, Dictionary<string, double?>> baselines = new Dictionary<string, Dictionary<string, double?>>();
        readonly HashSet<string> backedUp = new HashSet<string>();

        static string Key(string path) { return Path.GetFullPath(path); }

        /// <summary>True when <paramref name="path"/> was loaded or saved in this session.</summary>
        public bool WasLoaded(string path) { return baselines.ContainsKey(Key(path)); }
        /// <summary>True when <paramref name="path"/> was already copied aside in this session.</summary>
        public bool WasBackedUp(string path) { return backedUp.Contains(Key(path)); }
        /// <summary>The values after the last load or save of <paramref name="path"/> (see <see cref="KindSettingsRead.Baseline"/>), or null.</summary>
        public Dictionary<string, double?> Baseline(string path)
        {
            Dictionary<string, double?> b;
            return baselines.TryGetValue(Key(path), out b) ? b : null;
        }
        internal void Remember(string path, Dictionary<string, double?> baseline) { baselines[Key(path)] = baseline ?? new Dictionary<string, double?>(); }
        internal void Forget(string path) { baselines.Remove(Key(path)); }
        internal void MarkBackedUp(string path) { backedUp.Add(Key(path)); }
    }

    /// <summary>
    /// Reads a settings file in this package's format (src/rig/settings.ts; recognised by a member only it
    /// has, e.g. footOffsets) or in the original KindRetargeting's (a JsonUtility object of
    /// CustomRetargetingScript's fields), and merges the members this package does not use back into the file on save.
    /// The original's fields it imports, by the original's names (design document, "저장 항목"):
    /// <list type="bullet">
    /// <item><c>footFrontBackOffset</c>, <c>footInOutOffset</c> -&gt; both feet's footOffsets.frontBack / inOut (-0.5..0.5 m);</item>
    /// <item><c>floorHeight</c> (-10..10 m), <c>avatarScale</c>, <c>headScale</c> (0.1..3) -&gt; the same names;</item>
    /// <item><c>initialHipsHeight</c> (0..10 m; 0 or less: not measured, null);</item>
    /// <item><c>chairSeatHeightOffset</c> -&gt; chairSeatOffset (-1..1 m);</item>
    /// <item><c>headRotationOffsetX/Y/Z</c> -&gt; headRotationOffset[0..2] (-180..180 degrees).</item>
    /// </list>
    /// Every other member (the rotation offset cache among them: the design document gives neither its name
    /// nor its layout, and its offsets belong to the original's bone order and source) is not imported, is
    /// named in the report and stays in the file, byte for byte, when the file is saved. A value out of its
    /// range is not imported either (reported, kept). A mapped member that is not a number, a file that is
    /// not one JSON object, or a file in this package's format whose members have the wrong JSON types is
    /// unreadable: the caller moves it aside (<see cref="KindFiles.MoveAside"/>) before anything is saved.
    /// </summary>
    public static class KindSettingsImport
    {
        /// <summary>The top-level members of this package's format (src/rig/settings.ts).</summary>
        public static readonly string[] KindKeys =
        {
            "schemaVersion", "avatarScale", "headScale", "headRotationOffset", "floorHeight", "initialHipsHeight",
            "chairSeatOffset", "footOffsets", "rotationOffsets", "sourceFilter",
        };

        static bool IsKindKey(string k) { return Array.IndexOf(KindKeys, k) >= 0; }

        /// <summary>
        /// This package's format: a member only it has (schemaVersion, headRotationOffset, chairSeatOffset,
        /// footOffsets, rotationOffsets, sourceFilter; exportSettings writes no schemaVersion). Otherwise the
        /// original's (its members share only avatarScale, headScale, floorHeight, initialHipsHeight with ours).
        /// </summary>
        static bool IsKindFile(Dictionary<string, object> v)
        {
            foreach (string k in KindKeys)
                if (k != "avatarScale" && k != "headScale" && k != "floorHeight" && k != "initialHipsHeight" && v.ContainsKey(k)) return true;
            return false;
        }

        /// <summary>
        /// Reads <paramref name="text"/>. <paramref name="currentSettingsJson"/>: the hub's settings now
        /// (exportSettings), the base the original's values are written over (its members this package has
        /// and the original has not, e.g. sourceFilter, keep their current values). Never throws for a bad
        /// file: the report's Format is then "unreadable" with the problem.
        /// </summary>
        public static KindSettingsRead Read(string text, string currentSettingsJson)
        {
            var r = new KindSettingsRead { Report = new KindSettingsReport() };
            var rep = r.Report;
            List<KeyValuePair<string, string>> members;
            try
            {
                if (!(KindJson.Parse(text) is Dictionary<string, object>)) return Unreadable(r, "not a JSON object");
                members = KindJson.RawMembers(text);
            }
            catch (FormatException e) { return Unreadable(r, "not valid JSON: " + e.Message); }
            var values = new Dictionary<string, object>();
            foreach (var kv in members) values[kv.Key] = KindJson.Parse(kv.Value);

            if (IsKindFile(values))
            {
                rep.Format = "kind";
                string bad = CheckKindTypes(values);
                if (bad != null) return Unreadable(r, bad);
                var now = KindJson.Parse(currentSettingsJson) as Dictionary<string, object>;
                var ours = new Dictionary<string, object>();
                bool changed = false;
                foreach (var kv in members)
                {
                    string k = kv.Key;
                    if (!IsKindKey(k)) { rep.NotImported.Add(k + ": not a setting of this package"); continue; }
                    Target t = Map(k);
                    if (t != null && values[k] is double)
                    {
                        // the shared names keep the original's values as they were (MergeForSave), so a value
                        // out of our range can be here: not imported, the hub's current value stays
                        double x = (double)values[k];
                        if (k == "initialHipsHeight" && x <= 0)
                        {
                            ours[k] = null; changed = true;
                            rep.Imported.Add("initialHipsHeight = " + Num(x) + " -> initialHipsHeight null (not measured)");
                            continue;
                        }
                        if (x < t.Min || x > t.Max)
                        {
                            object c;
                            if (now != null && now.TryGetValue(k, out c)) ours[k] = c;
                            changed = true;
                            rep.NotImported.Add(k + " = " + Num(x) + ": out of this package's range " + Num(t.Min) + ".." + Num(t.Max));
                            continue;
                        }
                    }
                    ours[k] = values[k];
                    rep.Imported.Add(k);
                }
                r.SettingsJson = rep.NotImported.Count == 0 && !changed ? text : KindJson.Write(ours);
                r.Baseline = BaselineOf(members, r.SettingsJson);
                return r;
            }

            rep.Format = "original";
            var cur = KindJson.Parse(currentSettingsJson) as Dictionary<string, object>;
            if (cur == null) throw new FormatException("KindSettingsImport: the hub's current settings are not a JSON object");
            foreach (var kv in members)
            {
                string k = kv.Key;
                object v = values[k];
                Target t = Map(k);
                if (t == null) { rep.NotImported.Add(k + ": no matching setting in this package"); continue; }
                if (!(v is double)) return Unreadable(r, k + ": need a number, got " + Describe(v));
                double x = (double)v;
                if (k == "initialHipsHeight" && x <= 0)
                {
                    cur["initialHipsHeight"] = null;
                    rep.Imported.Add("initialHipsHeight = " + Num(x) + " -> initialHipsHeight null (not measured)");
                    continue;
                }
                if (x < t.Min || x > t.Max)
                {
                    rep.NotImported.Add(k + " = " + Num(x) + ": out of this package's range " + Num(t.Min) + ".." + Num(t.Max));
                    continue;
                }
                t.Set(cur, x);
                rep.Imported.Add(k + " = " + Num(x) + " -> " + t.Ours);
            }
            r.SettingsJson = KindJson.Write(cur);
            r.Baseline = BaselineOf(members, r.SettingsJson);
            return r;
        }

        /// <summary>
        /// For each of <paramref name="members"/> that maps onto a setting: that setting's value in
        /// <paramref name="settingsJson"/> (see <see cref="KindSettingsRead.Baseline"/>).
        /// </summary>
        public static Dictionary<string, double?> BaselineOf(List<KeyValuePair<string, string>> members, string settingsJson)
        {
            var b = new Dictionary<string, double?>();
            var ours = KindJson.Parse(settingsJson) as Dictionary<string, object>;
            if (ours == null) return b;
            foreach (var kv in members)
            {
                Target t = Map(kv.Key);
                if (t != null) b[kv.Key] = ValueOf(t, ours);
            }
            return b;
        }

        static double? ValueOf(Target t, Dictionary<string, object> ours) { return t.Get != null ? t.Get(ours) : Get(ours, t.Ours); }

        /// <summary>Equal, or equal within float precision (the shell sends its float fields back to the hub).</summary>
        static bool Close(double? a, double? b)
        {
            if (!a.HasValue || !b.HasValue) return a.HasValue == b.HasValue;
            return Math.Abs(a.Value - b.Value) <= 1e-5 * Math.Max(1.0, Math.Abs(a.Value));
        }

        /// <summary>True when a member of <paramref name="before"/> is missing from <paramref name="after"/> or has another value (both JSON objects).</summary>
        public static bool ChangesAnyValue(string before, string after)
        {
            var a = KindJson.Parse(before) as Dictionary<string, object>;
            var b = KindJson.Parse(after) as Dictionary<string, object>;
            if (a == null || b == null) return true;
            foreach (var kv in a)
            {
                object o;
                if (!b.TryGetValue(kv.Key, out o) || !DeepEquals(kv.Value, o)) return true;
            }
            return false;
        }

        static bool DeepEquals(object x, object y)
        {
            if (x == null || y == null) return x == null && y == null;
            if (x is double && y is double) return (double)x == (double)y;
            if (x is string || x is bool) return x.Equals(y);
            var lx = x as List<object>; var ly = y as List<object>;
            if (lx != null || ly != null)
            {
                if (lx == null || ly == null || lx.Count != ly.Count) return false;
                for (int i = 0; i < lx.Count; i++) if (!DeepEquals(lx[i], ly[i])) return false;
                return true;
            }
            var dx = x as Dictionary<string, object>; var dy = y as Dictionary<string, object>;
            if (dx == null || dy == null || dx.Count != dy.Count) return false;
            foreach (var kv in dx)
            {
                object o;
                if (!dy.TryGetValue(kv.Key, out o) || !DeepEquals(kv.Value, o)) return false;
            }
            return true;
        }

        /// <summary>
        /// The text to save: <paramref name="settingsJson"/> (this package's settings, as exportSettings gives
        /// them) with every member of <paramref name="existingText"/> (the file on disk, or null) that it does
        /// not have appended, so nothing the file held is dropped. Those members keep their JSON text byte for
        /// byte. The members that map onto a setting (the original's footFrontBackOffset, footInOutOffset,
        /// chairSeatHeightOffset, headRotationOffsetX/Y/Z, and the shared floorHeight, avatarScale, headScale,
        /// initialHipsHeight, chairSeatOffset) keep the file's text too while this package's setting still has
        /// its <paramref name="baseline"/> value (the user has not set it here since the load or last save:
        /// e.g. floorHeight 12, out of our range, not imported, stays 12); otherwise, or without a baseline
        /// (a file not loaded in this session), they are written from this package's values, so the original
        /// component reads the same calibration. <paramref name="settingsJson"/> is returned unchanged when
        /// <paramref name="existingText"/> is null. Throws FormatException when <paramref name="existingText"/>
        /// is not one JSON object (the caller moves it aside instead).
        /// </summary>
        public static string MergeForSave(string settingsJson, string existingText, Dictionary<string, double?> baseline)
        {
            if (existingText == null) return settingsJson;
            string problem = Problem(existingText);
            if (problem != null) throw new FormatException(problem);
            var old = KindJson.RawMembers(existingText);
            var oldRaw = new Dictionary<string, string>();
            foreach (var kv in old) oldRaw[kv.Key] = kv.Value;
            var ours = KindJson.Parse(settingsJson) as Dictionary<string, object>;
            if (ours == null) throw new FormatException("KindSettingsImport: the settings to save are not a JSON object");
            var mine = KindJson.RawMembers(settingsJson);
            var kept = new Dictionary<string, string>();
            foreach (var kv in mine)
            {
                string was;
                Target t = Map(kv.Key);
                if (t != null && oldRaw.TryGetValue(kv.Key, out was) && was != kv.Value && Unchanged(kv.Key, t, ours, baseline)) kept[kv.Key] = was;
            }
            var sb = new StringBuilder();
            bool first = true;
            Action<string, string> add = (k, raw) =>
            {
                sb.Append(first ? "\n  " : ",\n  ");
                first = false;
                KindJson.AppendString(sb, k);
                sb.Append(": ").Append(raw);
            };
            if (kept.Count == 0)
            {
                // our members as exported (their layout too); the file's other members are appended
                int end = settingsJson.LastIndexOf('}');
                string body = settingsJson.Substring(0, end).TrimEnd();
                sb.Append(body);
                first = body.EndsWith("{", StringComparison.Ordinal);
            }
            else
            {
                sb.Append('{');
                foreach (var kv in mine) add(kv.Key, kept.ContainsKey(kv.Key) ? kept[kv.Key] : kv.Value);
            }
            int length = sb.Length;
            foreach (var kv in old)
            {
                if (ours.ContainsKey(kv.Key)) continue;
                string raw = kv.Value;
                Target t = Map(kv.Key);
                if (t != null && t.Get != null && KindJson.Parse(raw) is double && !Unchanged(kv.Key, t, ours, baseline))
                {
                    double? now = t.Get(ours);
                    if (now.HasValue) raw = KindJson.Number(now.Value);
                }
                add(kv.Key, raw);
            }
            if (kept.Count == 0 && sb.Length == length) return settingsJson;
            return sb.Append(first ? "}" : "\n}").ToString();
        }

        /// <summary>As <see cref="MergeForSave(string, string, Dictionary{string, double?})"/> without a baseline (a file not loaded in this session).</summary>
        public static string MergeForSave(string settingsJson, string existingText) { return MergeForSave(settingsJson, existingText, null); }

        static bool Unchanged(string key, Target t, Dictionary<string, object> ours, Dictionary<string, double?> baseline)
        {
            double? then;
            return baseline != null && baseline.TryGetValue(key, out then) && Close(then, ValueOf(t, ours));
        }

        /// <summary>Why <paramref name="text"/> is an unreadable settings file (see the class docs), or null.</summary>
        public static string Problem(string text) { return Read(text, "{}").Report.Problem; }

        static KindSettingsRead Unreadable(KindSettingsRead r, string problem)
        {
            r.Report.Format = "unreadable";
            r.Report.Problem = problem;
            r.Report.Imported.Clear();
            r.Report.NotImported.Clear();
            r.SettingsJson = null;
            return r;
        }

        static string CheckKindTypes(Dictionary<string, object> v)
        {
            foreach (string k in new[] { "schemaVersion", "avatarScale", "headScale", "floorHeight", "chairSeatOffset" })
                if (v.ContainsKey(k) && !(v[k] is double)) return k + ": need a number, got " + Describe(v[k]);
            if (v.ContainsKey("initialHipsHeight") && v["initialHipsHeight"] != null && !(v["initialHipsHeight"] is double))
                return "initialHipsHeight: need a number or null, got " + Describe(v["initialHipsHeight"]);
            if (v.ContainsKey("headRotationOffset"))
            {
                var a = v["headRotationOffset"] as List<object>;
                if (a == null || a.Count != 3 || !(a[0] is double) || !(a[1] is double) || !(a[2] is double))
                    return "headRotationOffset: need [x, y, z] numbers, got " + Describe(v["headRotationOffset"]);
            }
            foreach (string k in new[] { "footOffsets", "rotationOffsets", "sourceFilter" })
                if (v.ContainsKey(k) && !(v[k] is Dictionary<string, object>)) return k + ": need an object, got " + Describe(v[k]);
            return null;
        }

        static string Describe(object v)
        {
            if (v == null) return "null";
            if (v is string) return "a string " + KindJson.Quote((string)v);
            if (v is bool) return (bool)v ? "true" : "false";
            if (v is List<object>) return "an array";
            if (v is Dictionary<string, object>) return "an object";
            return KindJson.Number((double)v);
        }

        static string Num(double x) { return x.ToString("R", CultureInfo.InvariantCulture); }

        sealed class Target
        {
            public string Ours;
            public double Min, Max;
            public Action<Dictionary<string, object>, double> Set;
            public Func<Dictionary<string, object>, double?> Get; // for MergeForSave; null: same name in ours
        }

        static Dictionary<string, object> Obj(Dictionary<string, object> d, string k)
        {
            object o;
            var x = d.TryGetValue(k, out o) ? o as Dictionary<string, object> : null;
            if (x == null) { x = new Dictionary<string, object>(); d[k] = x; }
            return x;
        }

        static double? Get(Dictionary<string, object> d, string k)
        {
            object o;
            return d != null && d.TryGetValue(k, out o) && o is double ? (double?)(double)o : null;
        }

        static Target Feet(string field)
        {
            return new Target
            {
                Ours = "footOffsets.left/right." + field, Min = -0.5, Max = 0.5,
                Set = (d, x) => { var f = Obj(d, "footOffsets"); Obj(f, "left")[field] = x; Obj(f, "right")[field] = x; },
                Get = d =>
                {
                    var f = KindJson.Member(d, "footOffsets") as Dictionary<string, object>;
                    double? l = Get(KindJson.Member(f, "left") as Dictionary<string, object>, field);
                    double? r = Get(KindJson.Member(f, "right") as Dictionary<string, object>, field);
                    return l.HasValue && r.HasValue ? (l.Value + r.Value) / 2 : (double?)null;
                },
            };
        }

        static Target Head(int i)
        {
            return new Target
            {
                Ours = "headRotationOffset[" + i + "]", Min = -180, Max = 180,
                Set = (d, x) =>
                {
                    var a = KindJson.Member(d, "headRotationOffset") as List<object>;
                    if (a == null || a.Count != 3) { a = new List<object> { 0.0, 0.0, 0.0 }; d["headRotationOffset"] = a; }
                    a[i] = x;
                },
                Get = d =>
                {
                    var a = KindJson.Member(d, "headRotationOffset") as List<object>;
                    return a != null && a.Count == 3 && a[i] is double ? (double?)(double)a[i] : null;
                },
            };
        }

        static Target Same(string k, double min, double max)
        {
            return new Target { Ours = k, Min = min, Max = max, Set = (d, x) => d[k] = x };
        }

        /// <summary>The original's field <paramref name="k"/> mapped onto this package's settings, or null.</summary>
        static Target Map(string k)
        {
            switch (k)
            {
                case "footFrontBackOffset": return Feet("frontBack");
                case "footInOutOffset": return Feet("inOut");
                case "floorHeight": return Same(k, -10, 10);
                case "avatarScale": return Same(k, 0.1, 3);
                case "headScale": return Same(k, 0.1, 3);
                case "initialHipsHeight": return Same(k, 0, 10);
                case "chairSeatOffset": return Same(k, -1, 1); // this package's name (its files only)
                case "chairSeatHeightOffset":
                    return new Target
                    {
                        Ours = "chairSeatOffset", Min = -1, Max = 1,
                        Set = (d, x) => d["chairSeatOffset"] = x,
                        Get = d => Get(d, "chairSeatOffset"),
                    };
                case "headRotationOffsetX": return Head(0);
                case "headRotationOffsetY": return Head(1);
                case "headRotationOffsetZ": return Head(2);
                default: return null;
            }
        }
    }

    /// <summary>
    /// Loads one character's settings file into a hub: reads it (<see cref="KindSettingsImport.Read"/>),
    /// sends the settings with <c>apply</c> (applySettings; returns the reply), and when the file cannot be
    /// read or the hub refuses it, moves it aside (<see cref="KindFiles.MoveAside"/>) so no later save
    /// overwrites it. Never throws for a bad file; the report says what happened (CustomRetargetingScript
    /// logs its <see cref="KindSettingsReport.Summary"/> once).
    /// </summary>
    public static class KindSettingsLoader
    {
        /// <summary>
        /// <paramref name="export"/>: the hub's current settings (exportSettings); <paramref name="apply"/>:
        /// sends applySettings with the given settings JSON and returns the reply; <paramref name="utc"/>:
        /// the time for the moved-aside name. <paramref name="applied"/>: the settings JSON the hub took, or null.
        /// </summary>
        public static KindSettingsReport Load(string path, Func<string> export, Func<string, string> apply, DateTime utc, out string applied)
        {
            return Load(path, export, apply, utc, out applied, null);
        }

        /// <summary>
        /// As above; <paramref name="session"/> (may be null) remembers what the load took
        /// (<see cref="KindSettingsRead.Baseline"/>) for the saves of this session.
        /// </summary>
        public static KindSettingsReport Load(string path, Func<string> export, Func<string, string> apply, DateTime utc, out string applied, KindSettingsSession session)
        {
            applied = null;
            string text = File.ReadAllText(path, Encoding.UTF8);
            string current = export();
            if (current == null) throw new InvalidOperationException("no hub to load " + path + " into");
            KindSettingsRead read = KindSettingsImport.Read(text, current);
            var rep = read.Report;
            if (read.SettingsJson != null)
            {
                string reply = apply(read.SettingsJson);
                if (reply != null && KindJson.IsOk(KindJson.Parse(reply)))
                {
                    applied = read.SettingsJson;
                    if (session != null) session.Remember(path, read.Baseline);
                    return rep;
                }
                rep.Format = "unreadable";
                rep.Problem = "refused by the hub: " + (reply == null ? "no reply" : KindJson.DescribeReply(reply));
            }
            if (session != null) session.Forget(path);
            try { rep.MovedTo = KindFiles.MoveAside(path, utc); }
            catch (Exception e) when (e is IOException || e is UnauthorizedAccessException) { rep.Problem += "; could not move it aside: " + e.Message; }
            return rep;
        }
    }

    /// <summary>
    /// Saves one character's settings: asks <c>export</c> for the settings JSON (null: nothing to save,
    /// e.g. no hub yet), merges in every member the file on disk holds that the export does not
    /// (<see cref="KindSettingsImport.MergeForSave"/>: the original's fields, anything unknown), then writes
    /// it atomically (<see cref="KindFiles.WriteAtomically(string, string, Action)"/>) to the path
    /// <c>path</c> gives. A file on disk that is not one JSON object is never overwritten: once the new
    /// text is written to the temporary file, the old file is moved aside to
    /// <c>{target}_settings.unreadable-{time}.json</c> (<see cref="MovedAside"/>), then the new one is
    /// renamed into place. Before the first save (per <see cref="KindSettingsSession"/>) that changes any
    /// value of a file written by the original KindRetargeting, or of a file not loaded in this session,
    /// the file is copied to <c>{target}_settings.original-{time}.json</c> (<see cref="BackedUp"/>; never over
    /// an existing file; when the copy fails nothing is saved). Never throws: a failure is kept in
    /// <see cref="LastError"/> and the previous file stays intact. CustomRetargetingScript calls <see cref="Save"/> from its menu/API and from
    /// Application.quitting (auto-save on quit).
    /// </summary>
    public sealed class KindSettingsSaver
    {
        readonly Func<string> export;
        readonly Func<string> path;
        readonly KindSettingsSession session;

        /// <summary>The last failure's message, or null after a successful save.</summary>
        public string LastError { get; private set; }
        /// <summary>The path of the last successful save, or null.</summary>
        public string LastSaved { get; private set; }
        /// <summary>Where the last save moved an unreadable previous file, or null.</summary>
        public string MovedAside { get; private set; }
        /// <summary>Why that file was unreadable, or null.</summary>
        public string MovedAsideReason { get; private set; }
        /// <summary>Where this save copied the previous file before overwriting it, or null.</summary>
        public string BackedUp { get; private set; }
        /// <summary>Why: "written by the original KindRetargeting" or "not loaded in this session", or null.</summary>
        public string BackedUpReason { get; private set; }
        /// <summary>The clock for the moved-aside name (UTC); tests set it.</summary>
        public Func<DateTime> Clock = () => DateTime.UtcNow;

        public KindSettingsSaver(Func<string> export, Func<string> path) : this(export, path, null) { }

        /// <summary><paramref name="session"/>: what this component loaded, saved and backed up (null: a session of its own, nothing loaded).</summary>
        public KindSettingsSaver(Func<string> export, Func<string> path, KindSettingsSession session)
        {
            if (export == null) throw new ArgumentNullException("export");
            if (path == null) throw new ArgumentNullException("path");
            this.export = export;
            this.path = path;
            this.session = session ?? new KindSettingsSession();
        }

        /// <summary>Exports, merges and writes; true on success (see the class docs).</summary>
        public bool Save()
        {
            string file = null;
            MovedAside = null;
            MovedAsideReason = null;
            BackedUp = null;
            BackedUpReason = null;
            try
            {
                file = path();
                string text = export();
                if (text == null) { LastError = "no settings to save (no hub)"; return false; }
                string existing = File.Exists(file) ? File.ReadAllText(file, Encoding.UTF8) : null;
                string final = text;
                string unreadable = null;
                if (existing != null)
                {
                    try { final = KindSettingsImport.MergeForSave(text, existing, session.Baseline(file)); }
                    catch (FormatException e) { unreadable = e.Message; final = text; }
                }
                if (existing != null && unreadable == null && !session.WasBackedUp(file))
                {
                    bool original = KindSettingsImport.Read(existing, "{}").Report.Format == "original";
                    if ((original || !session.WasLoaded(file)) && KindSettingsImport.ChangesAnyValue(existing, final))
                    {
                        BackedUp = KindFiles.CopyAside(file, Clock());
                        BackedUpReason = original ? "written by the original KindRetargeting" : "not loaded in this session";
                        session.MarkBackedUp(file);
                    }
                }
                string target = file;
                KindFiles.WriteAtomically(file, final, unreadable == null ? (Action)null : () =>
                {
                    MovedAside = KindFiles.MoveAside(target, Clock());
                    MovedAsideReason = unreadable;
                });
                LastError = null;
                LastSaved = file;
                session.Remember(file, KindSettingsImport.BaselineOf(KindJson.RawMembers(final), text));
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
