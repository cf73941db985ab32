// Migration of scenes and prefabs built with the original KindRetargeting scripts (issue 21 part 3).
// Plain text work on Unity's YAML, Unity-free (System only) so it is tested under Mono
// (TsProject/test/unity.migration.mono.test.ts); the menu item is KindMigrationMenu.cs.
//
// The original's MonoBehaviours (CustomRetargetingScript, LimbWeightController, ...) have other script
// GUIDs than this package's classes of the same name, so their components show "Missing script" after
// the swap. Every `m_Script: {fileID: 11500000, guid: <old>, type: 3}` whose old GUID belongs to a script
// of the original (read from its .cs.meta files: the file name is the class name, as Unity requires for a
// MonoBehaviour) is pointed at our script of the same class name; every other byte of the file is kept, so
// every serialized value whose field name is the same (or one our class lists in [FormerlySerializedAs])
// keeps working. Files are read and written as bytes (Latin-1, one char per byte), backed up before they
// change, written atomically (temporary file, then rename) and never touched when nothing changes.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Text;
using System.Text.RegularExpressions;

namespace KindRetargeting.Editor
{
    /// <summary>One script of ours: its class name, its GUID, its serialized field names.</summary>
    public sealed class KindMigrationScript
    {
        public string ClassName;
        public string Guid;
        /// <summary>Serialized field names (public or [SerializeField], not static/const/readonly/[NonSerialized]), with [FormerlySerializedAs] names.</summary>
        public HashSet<string> Fields = new HashSet<string>(StringComparer.Ordinal);
    }

    /// <summary>What migrating one file did.</summary>
    public sealed class KindMigrationFileReport
    {
        public string Path;
        /// <summary>The backup of the file before the change (null when the file did not change).</summary>
        public string Backup;
        public bool Changed;
        /// <summary>"ClassName &amp;fileID" per component pointed at our script.</summary>
        public List<string> Migrated = new List<string>();
        /// <summary>"guid (ClassName)" per old script referenced here that has no class of ours by that name.</summary>
        public List<string> UnmappedScripts = new List<string>();
        /// <summary>"ClassName.field" per serialized field of a migrated component our class does not have.</summary>
        public List<string> UnmappedFields = new List<string>();
        /// <summary>Why the file could not be migrated (null when it could).</summary>
        public string Error;
        /// <summary>True when the file needed changes but is read-only (e.g. locked by version control) and was left as it is.</summary>
        public bool ReadOnly;
        /// <summary>A problem that is not an error (e.g. scripts without a .cs.meta in the old folder), or null.</summary>
        public string Warning;

        /// <summary>True when something needs the user's attention: an error, a read-only file left as it is, a warning.</summary>
        public bool HasProblem { get { return Error != null || ReadOnly || Warning != null; } }
    }

    public static class KindMigration
    {
        /// <summary>Unity's fileID of the MonoScript in a .cs file.</summary>
        public const string ScriptFileId = "11500000";

        static readonly Encoding Bytes = Encoding.GetEncoding(28591); // ISO-8859-1: byte <-> char, round-trips any file
        static readonly Regex MetaGuid = new Regex(@"^guid:\s*([0-9a-fA-F]{32})\s*$", RegexOptions.Multiline);
        static readonly Regex ScriptRef = new Regex(@"m_Script:\s*\{fileID:\s*11500000,\s*guid:\s*([0-9a-fA-F]{32}),\s*type:\s*3\s*\}");
        static readonly Regex DocStart = new Regex(@"^--- ", RegexOptions.Multiline);
        static readonly Regex DocAnchor = new Regex(@"\A--- !u!\d+ &(-?\d+)");
        static readonly Regex TopKey = new Regex(@"^  ([A-Za-z_][A-Za-z0-9_]*):", RegexOptions.Multiline);
        // A prefab instance's (or variant's) override of a component's script: an m_Modifications entry
        // `propertyPath: m_Script` whose objectReference is a MonoScript.
        static readonly Regex ModScriptRef = new Regex(@"(propertyPath:[ \t]*m_Script[ \t]*\r?\n(?:[ \t]+value:[^\n]*\n)?[ \t]+objectReference:[ \t]*\{fileID:[ \t]*11500000,[ \t]*guid:[ \t]*)([0-9a-fA-F]{32})(,[ \t]*type:[ \t]*3[ \t]*\})");

        /// <summary>The keys every MonoBehaviour document has before its own fields.</summary>
        static readonly HashSet<string> HeaderKeys = new HashSet<string>(StringComparer.Ordinal)
        {
            "m_ObjectHideFlags", "m_CorrespondingSourceObject", "m_PrefabInstance", "m_PrefabAsset",
            "m_PrefabParentObject", "m_PrefabInternal", "m_GameObject", "m_Enabled", "m_EditorHideFlags",
            "m_Script", "m_Name", "m_EditorClassIdentifier",
        };

        /// <summary>
        /// The scripts in <paramref name="folder"/> (recursively): class name (the .cs file name) to the GUID of
        /// its .cs.meta. A .meta without a GUID line is skipped.
        /// </summary>
        public static Dictionary<string, string> ReadScriptGuids(string folder)
        {
            var found = new Dictionary<string, string>(StringComparer.Ordinal);
            foreach (string meta in Sorted(Directory.GetFiles(folder, "*.cs.meta", SearchOption.AllDirectories)))
            {
                Match m = MetaGuid.Match(File.ReadAllText(meta));
                if (!m.Success) continue;
                string name = System.IO.Path.GetFileName(meta);
                found[name.Substring(0, name.Length - ".cs.meta".Length)] = m.Groups[1].Value.ToLowerInvariant();
            }
            return found;
        }

        /// <summary>
        /// Our scripts under <paramref name="packageFolder"/>: every .cs with a .cs.meta, by class name (the file
        /// name), with the serialized field names of that class read from its source (base classes of ours
        /// included).
        /// </summary>
        public static Dictionary<string, KindMigrationScript> ReadOurScripts(string packageFolder)
        {
            var guids = ReadScriptGuids(packageFolder);
            var sources = new Dictionary<string, string>(StringComparer.Ordinal);
            foreach (string cs in Sorted(Directory.GetFiles(packageFolder, "*.cs", SearchOption.AllDirectories)))
                sources[System.IO.Path.GetFileNameWithoutExtension(cs)] = File.ReadAllText(cs);
            var ours = new Dictionary<string, KindMigrationScript>(StringComparer.Ordinal);
            foreach (var kv in guids)
            {
                var s = new KindMigrationScript { ClassName = kv.Key, Guid = kv.Value };
                string cls = kv.Key;
                for (int depth = 0; cls != null && depth < 8; depth++)
                {
                    string src = FindSource(sources, cls);
                    if (src == null) break;
                    string baseName;
                    s.Fields.UnionWith(SerializedFieldNames(src, cls, out baseName));
                    cls = baseName;
                }
                ours[kv.Key] = s;
            }
            return ours;
        }

        static string FindSource(Dictionary<string, string> sources, string cls)
        {
            string src;
            if (sources.TryGetValue(cls, out src)) return src;
            foreach (var kv in sources)
                if (Regex.IsMatch(kv.Value, @"\bclass\s+" + Regex.Escape(cls) + @"\b")) return kv.Value;
            return null;
        }

        /// <summary>The serialized field names of <paramref name="className"/> declared in <paramref name="source"/>.</summary>
        public static HashSet<string> SerializedFieldNames(string source, string className)
        {
            string ignored;
            return SerializedFieldNames(source, className, out ignored);
        }

        /// <summary>
        /// The serialized field names of <paramref name="className"/> in C# <paramref name="source"/>: its own
        /// fields (not those of nested types) that are public or [SerializeField], not static, const, readonly
        /// or [NonSerialized], plus every [FormerlySerializedAs("...")] name. <paramref name="baseName"/>: the
        /// base class it names (null for none or MonoBehaviour).
        /// </summary>
        public static HashSet<string> SerializedFieldNames(string source, string className, out string baseName)
        {
            var names = new HashSet<string>(StringComparer.Ordinal);
            baseName = null;
            string code = StripCommentsAndStrings(source, names);
            Match decl = Regex.Match(code, @"\bclass\s+" + Regex.Escape(className) + @"\b([^{]*)\{");
            if (!decl.Success) return names;
            Match b = Regex.Match(decl.Groups[1].Value, @":\s*([A-Za-z_][A-Za-z0-9_.]*)");
            if (b.Success && b.Groups[1].Value != "MonoBehaviour" && b.Groups[1].Value != "UnityEngine.MonoBehaviour")
                baseName = b.Groups[1].Value.Substring(b.Groups[1].Value.LastIndexOf('.') + 1);
            // The class body with every nested block emptied: members at depth 1 only.
            var body = new StringBuilder();
            int depth = 1;
            for (int i = decl.Index + decl.Length; i < code.Length && depth > 0; i++)
            {
                char c = code[i];
                if (c == '{') { if (depth == 1) body.Append('{'); depth++; }
                else if (c == '}') { depth--; if (depth == 1) body.Append('}'); }
                else if (depth == 1) body.Append(c);
            }
            // Statements: split after ';' and '}' (a member with a block ends with '}').
            foreach (string raw in Regex.Split(body.ToString(), @"(?<=[;}])"))
            {
                string st = raw.Trim();
                if (!st.EndsWith(";") || st.Contains("{") || st.Contains("=>")) continue;
                string attrs = "";
                Match a;
                while ((a = Regex.Match(st, @"\A\[([^\]]*)\]\s*")).Success)
                {
                    attrs += a.Groups[1].Value + ";";
                    st = st.Substring(a.Length);
                }
                int eq = st.IndexOf('=');
                string head = (eq >= 0 ? st.Substring(0, eq) : st.TrimEnd(';')).Trim();
                if (head.Contains("(")) continue; // a method or a constructor
                string[] words = Regex.Split(head, @"\s+");
                bool isPublic = false, skip = false;
                foreach (string w in words)
                {
                    if (w == "public") isPublic = true;
                    else if (w == "static" || w == "const" || w == "readonly" || w == "event" || w == "abstract" || w == "delegate" || w == "using") skip = true;
                }
                bool serializeField = Regex.IsMatch(attrs, @"\bSerializeField\b");
                bool nonSerialized = Regex.IsMatch(attrs, @"\bNonSerialized\b");
                if (skip || nonSerialized || !(isPublic || serializeField)) continue;
                // The declarators: commas outside <> (List<A, B> is one type).
                int angle = 0;
                var part = new StringBuilder();
                var parts = new List<string>();
                foreach (char c in head)
                {
                    if (c == '<') angle++;
                    else if (c == '>') angle--;
                    if (c == ',' && angle == 0) { parts.Add(part.ToString()); part.Length = 0; }
                    else part.Append(c);
                }
                parts.Add(part.ToString());
                foreach (string p in parts)
                {
                    Match n = Regex.Match(p, @"([A-Za-z_][A-Za-z0-9_]*)\s*$");
                    if (n.Success) names.Add(n.Groups[1].Value);
                }
            }
            return names;
        }

        /// <summary>
        /// The source without comments and with every string literal emptied; the argument of each
        /// [FormerlySerializedAs("name")] goes into <paramref name="formerNames"/> first.
        /// </summary>
        static string StripCommentsAndStrings(string src, HashSet<string> formerNames)
        {
            string noComments = Regex.Replace(src, @"//[^\n]*|/\*.*?\*/|@""(?:""""|[^""])*""|""(?:\\.|[^""\\\n])*""|'(?:\\.|[^'\\\n])*'",
                m => m.Value.StartsWith("/") ? " " : m.Value, RegexOptions.Singleline);
            foreach (Match m in Regex.Matches(noComments, @"FormerlySerializedAs\s*\(\s*""([A-Za-z_][A-Za-z0-9_]*)""\s*\)"))
                formerNames.Add(m.Groups[1].Value);
            return Regex.Replace(noComments, @"@""(?:""""|[^""])*""|""(?:\\.|[^""\\\n])*""|'(?:\\.|[^'\\\n])*'", "\"\"");
        }

        /// <summary>
        /// Rewrites the text of a .unity or .prefab: each m_Script of an old script (<paramref name="oldGuidToClass"/>:
        /// GUID to class name) whose class <paramref name="ours"/> has gets our GUID; nothing else changes.
        /// Fills <paramref name="report"/> (Migrated, UnmappedScripts, UnmappedFields).
        /// </summary>
        public static string Rewrite(string text, IDictionary<string, string> oldGuidToClass,
            IDictionary<string, KindMigrationScript> ours, KindMigrationFileReport report)
        {
            var starts = new List<int>();
            foreach (Match d in DocStart.Matches(text)) starts.Add(d.Index);
            if (starts.Count == 0 || starts[0] != 0) starts.Insert(0, 0);
            var output = new StringBuilder(text.Length);
            for (int k = 0; k < starts.Count; k++)
            {
                int end = k + 1 < starts.Count ? starts[k + 1] : text.Length;
                string doc = text.Substring(starts[k], end - starts[k]);
                doc = RewriteModifications(doc, oldGuidToClass, ours, report);
                Match s = ScriptRef.Match(doc);
                string oldClass;
                if (!s.Success || !oldGuidToClass.TryGetValue(s.Groups[1].Value.ToLowerInvariant(), out oldClass))
                {
                    output.Append(doc);
                    continue;
                }
                string oldGuid = s.Groups[1].Value;
                Match anchor = DocAnchor.Match(doc);
                string where = anchor.Success ? " &" + anchor.Groups[1].Value : "";
                KindMigrationScript our;
                if (!ours.TryGetValue(oldClass, out our))
                {
                    string item = oldGuid.ToLowerInvariant() + " (" + oldClass + ")";
                    if (!report.UnmappedScripts.Contains(item)) report.UnmappedScripts.Add(item);
                    output.Append(doc);
                    continue;
                }
                if (string.Equals(our.Guid, oldGuid, StringComparison.OrdinalIgnoreCase)) { output.Append(doc); continue; }
                report.Migrated.Add(oldClass + where);
                // The fields: the document's top-level keys after the MonoBehaviour header.
                foreach (Match key in TopKey.Matches(doc))
                {
                    string f = key.Groups[1].Value;
                    if (HeaderKeys.Contains(f) || our.Fields.Contains(f)) continue;
                    string item = oldClass + "." + f;
                    if (!report.UnmappedFields.Contains(item)) report.UnmappedFields.Add(item);
                }
                Group g = s.Groups[1];
                output.Append(doc, 0, g.Index).Append(our.Guid).Append(doc, g.Index + g.Length, doc.Length - g.Index - g.Length);
            }
            return output.ToString();
        }

        /// <summary>
        /// The m_Modifications entries of one document that override m_Script with an old script: pointed at
        /// our script of the same class ("ClassName (m_Script override in &amp;anchor)" in Migrated), or
        /// reported in UnmappedScripts when we have no class of that name.
        /// </summary>
        static string RewriteModifications(string doc, IDictionary<string, string> oldGuidToClass,
            IDictionary<string, KindMigrationScript> ours, KindMigrationFileReport report)
        {
            if (doc.IndexOf("m_Modifications", StringComparison.Ordinal) < 0) return doc;
            Match anchor = DocAnchor.Match(doc);
            string where = anchor.Success ? " &" + anchor.Groups[1].Value : "";
            return ModScriptRef.Replace(doc, m =>
            {
                string oldGuid = m.Groups[2].Value, oldClass;
                if (!oldGuidToClass.TryGetValue(oldGuid.ToLowerInvariant(), out oldClass)) return m.Value;
                KindMigrationScript our;
                if (!ours.TryGetValue(oldClass, out our))
                {
                    string item = oldGuid.ToLowerInvariant() + " (" + oldClass + ", m_Script override in" + where + ")";
                    if (!report.UnmappedScripts.Contains(item)) report.UnmappedScripts.Add(item);
                    return m.Value;
                }
                if (string.Equals(our.Guid, oldGuid, StringComparison.OrdinalIgnoreCase)) return m.Value;
                report.Migrated.Add(oldClass + " (m_Script override in" + where + ")");
                return m.Groups[1].Value + our.Guid + m.Groups[3].Value;
            });
        }

        /// <summary>
        /// Migrates one file: when <see cref="Rewrite"/> changes it, copies the original to
        /// <paramref name="backupPath"/> (creating its folder) and writes the new text atomically; a file with
        /// nothing to change is not written. A read-only file (e.g. locked by Perforce) that needs changes is
        /// left as it is (ReadOnly). IO errors land in the report's Error (then the file is not migrated:
        /// Changed stays false).
        /// </summary>
        public static KindMigrationFileReport MigrateFile(string path, string backupPath,
            IDictionary<string, string> oldGuidToClass, IDictionary<string, KindMigrationScript> ours)
        {
            var report = new KindMigrationFileReport { Path = path };
            try
            {
                byte[] before = File.ReadAllBytes(path);
                string text = Bytes.GetString(before);
                string after = Rewrite(text, oldGuidToClass, ours, report);
                if (after == text) return report;
                if ((File.GetAttributes(path) & FileAttributes.ReadOnly) != 0) { report.ReadOnly = true; return report; }
                string dir = System.IO.Path.GetDirectoryName(System.IO.Path.GetFullPath(backupPath));
                if (!string.IsNullOrEmpty(dir)) Directory.CreateDirectory(dir);
                File.Copy(path, backupPath, false);
                report.Backup = backupPath;
                WriteAtomically(path, Bytes.GetBytes(after));
                report.Changed = true;
            }
            catch (Exception e)
            {
                if (e is IOException || e is UnauthorizedAccessException || e is ArgumentException || e is NotSupportedException)
                    report.Error = e.GetType().Name + ": " + e.Message;
                else throw;
            }
            return report;
        }

        /// <summary>Writes <paramref name="path"/>.kind-tmp, then renames it over <paramref name="path"/>; the temporary file is removed on failure.</summary>
        public static void WriteAtomically(string path, byte[] bytes)
        {
            string tmp = path + ".kind-tmp";
            try
            {
                File.WriteAllBytes(tmp, bytes);
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
        /// Migrates every .unity and .prefab under <paramref name="projectRoot"/>/Assets from the old scripts in
        /// <paramref name="oldScriptsFolder"/> to ours in <paramref name="packageFolder"/>. Backups go to
        /// <paramref name="projectRoot"/>/KindMigrationBackup-<paramref name="stamp"/>/ under each file's path
        /// relative to the project (outside Assets, so Unity does not import them). Returns one report per file
        /// that references an old script.
        /// </summary>
        public static List<KindMigrationFileReport> MigrateProject(string projectRoot, string oldScriptsFolder,
            string packageFolder, string stamp)
        {
            var folderProblem = CheckOldScriptsFolder(oldScriptsFolder);
            if (folderProblem != null && folderProblem.Error != null) return new List<KindMigrationFileReport> { folderProblem };
            var oldByClass = ReadScriptGuids(oldScriptsFolder);
            var ours = ReadOurScripts(packageFolder);
            var oldGuidToClass = new Dictionary<string, string>(StringComparer.Ordinal);
            foreach (var kv in oldByClass) oldGuidToClass[kv.Value] = kv.Key;
            string root = System.IO.Path.GetFullPath(projectRoot);
            string assets = System.IO.Path.Combine(root, "Assets");
            string backupRoot = System.IO.Path.Combine(root, "KindMigrationBackup-" + stamp);
            var reports = new List<KindMigrationFileReport>();
            if (folderProblem != null) reports.Add(folderProblem);
            if (!Directory.Exists(assets)) return reports;
            var files = new List<string>();
            files.AddRange(Directory.GetFiles(assets, "*.unity", SearchOption.AllDirectories));
            files.AddRange(Directory.GetFiles(assets, "*.prefab", SearchOption.AllDirectories));
            foreach (string file in Sorted(files.ToArray()))
            {
                string rel = System.IO.Path.GetFullPath(file).Substring(root.Length).TrimStart('/', '\\');
                var r = MigrateFile(file, System.IO.Path.Combine(backupRoot, rel), oldGuidToClass, ours);
                if (r.Changed || r.HasProblem || r.UnmappedScripts.Count > 0) reports.Add(r);
            }
            return reports;
        }

        /// <summary>
        /// What is wrong with the folder of the original's scripts, or null: missing (Error), no .cs.meta files
        /// at all (Error: the old GUIDs are in the .meta files; nothing could be migrated), or .cs files without
        /// their .cs.meta (Warning, naming them: their components are not migrated). Path is the folder.
        /// </summary>
        public static KindMigrationFileReport CheckOldScriptsFolder(string folder)
        {
            var r = new KindMigrationFileReport { Path = folder };
            if (!Directory.Exists(folder)) { r.Error = "the folder of the original's scripts does not exist"; return r; }
            string[] cs = Sorted(Directory.GetFiles(folder, "*.cs", SearchOption.AllDirectories));
            int metas = Directory.GetFiles(folder, "*.cs.meta", SearchOption.AllDirectories).Length;
            const string how = "the original's script GUIDs are in its .cs.meta files: copy the original's KindRetargeting folder together with its .meta files (package README, \"Migrating\") and run the migration again";
            if (metas == 0)
            {
                r.Error = cs.Length == 0
                    ? "no scripts (.cs.meta files) in this folder; " + how
                    : cs.Length + " .cs file(s) but no .cs.meta files, so nothing can be migrated; " + how;
                return r;
            }
            var missing = new List<string>();
            foreach (string f in cs)
                if (!File.Exists(f + ".meta")) missing.Add(System.IO.Path.GetFileName(f));
            if (missing.Count == 0) return null;
            r.Warning = missing.Count + " .cs file(s) without .cs.meta, their components are not migrated: " + string.Join(", ", missing.ToArray()) + "; " + how;
            return r;
        }

        /// <summary>True when a report needs the user's attention (an error, a read-only file, a warning).</summary>
        public static bool HasProblems(List<KindMigrationFileReport> reports)
        {
            foreach (var r in reports) if (r.HasProblem) return true;
            return false;
        }

        /// <summary>The time stamp used in backup names: yyyyMMdd-HHmmss (UTC).</summary>
        public static string Stamp(DateTime utc) { return utc.ToString("yyyyMMdd-HHmmss", CultureInfo.InvariantCulture); }

        /// <summary>The report as text: per file what changed, what could not be mapped, and errors.</summary>
        public static string Format(List<KindMigrationFileReport> reports)
        {
            var sb = new StringBuilder();
            int changed = 0, problems = 0;
            foreach (var r in reports) { if (r.Changed) changed++; if (r.HasProblem) problems++; }
            sb.Append("KindRetargeting migration: ").Append(changed).Append(" file(s) changed");
            sb.Append(problems == 0 ? ".\n" : "; " + problems + " PROBLEM(S), see below.\n");
            foreach (var r in reports)
            {
                sb.Append(r.Path).Append(r.Changed ? " (backup: " + r.Backup + ")" : " (unchanged)").Append('\n');
                if (r.ReadOnly) sb.Append("  skipped: the file is read-only (locked by version control? check it out and run the migration again)\n");
                if (r.Migrated.Count > 0)
                    sb.Append(r.Changed ? "  migrated: " : "  NOT migrated (the file was not written): ").Append(string.Join(", ", r.Migrated.ToArray())).Append('\n');
                if (r.UnmappedScripts.Count > 0) sb.Append("  scripts not mapped (no class of that name): ").Append(string.Join(", ", r.UnmappedScripts.ToArray())).Append('\n');
                if (r.UnmappedFields.Count > 0) sb.Append("  fields not mapped (values dropped on next save): ").Append(string.Join(", ", r.UnmappedFields.ToArray())).Append('\n');
                if (r.Warning != null) sb.Append("  warning: ").Append(r.Warning).Append('\n');
                if (r.Error != null) sb.Append("  error: ").Append(r.Error).Append('\n');
            }
            return sb.ToString();
        }

        static string[] Sorted(string[] files)
        {
            Array.Sort(files, StringComparer.Ordinal);
            return files;
        }
    }
}
