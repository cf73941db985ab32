// Minimal JSON helpers for the shells: writing setup/command messages and reading the bundle's replies
// (RFC 8259, https://www.rfc-editor.org/rfc/rfc8259). Not used per frame (only for commands, remote
// messages and the Editor), so allocation here is acceptable.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;
using UnityEngine.Scripting;

namespace KindRetargeting
{
    /// <summary>JSON writing and a small strict reader (objects become Dictionary&lt;string, object&gt;,
    /// arrays List&lt;object&gt;, numbers double, plus string, bool and null).</summary>
    [Preserve]
    public static class KindJson
    {
        /// <summary>A JSON string literal (quotes included) for <paramref name="s"/>.</summary>
        public static string Quote(string s)
        {
            var sb = new StringBuilder(s == null ? 2 : s.Length + 2);
            AppendString(sb, s);
            return sb.ToString();
        }

        /// <summary>Appends a JSON string literal.</summary>
        public static void AppendString(StringBuilder sb, string s)
        {
            if (s == null) { sb.Append("null"); return; }
            sb.Append('"');
            foreach (char c in s)
            {
                switch (c)
                {
                    case '"': sb.Append("\\\""); break;
                    case '\\': sb.Append("\\\\"); break;
                    case '\n': sb.Append("\\n"); break;
                    case '\r': sb.Append("\\r"); break;
                    case '\t': sb.Append("\\t"); break;
                    default:
                        if (c < 0x20) sb.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                        else sb.Append(c);
                        break;
                }
            }
            sb.Append('"');
        }

        /// <summary>Appends a number in invariant culture, shortest round-trip form; NaN/Infinity are refused.</summary>
        public static void AppendNumber(StringBuilder sb, double v)
        {
            if (double.IsNaN(v) || double.IsInfinity(v)) throw new ArgumentException("KindJson: " + v + " is not a JSON number");
            sb.Append(v.ToString("R", CultureInfo.InvariantCulture));
        }

        /// <summary>A number as JSON text.</summary>
        public static string Number(double v) { var sb = new StringBuilder(); AppendNumber(sb, v); return sb.ToString(); }

        /// <summary>Parses JSON text. Throws FormatException naming the character offset on bad input.</summary>
        public static object Parse(string text)
        {
            if (text == null) throw new FormatException("JSON: no text");
            int i = 0;
            object v = ReadValue(text, ref i, 0);
            SkipWs(text, ref i);
            if (i != text.Length) throw new FormatException("JSON: unexpected text at offset " + i);
            return v;
        }

        /// <summary>The member <paramref name="key"/> of a parsed object, or null.</summary>
        public static object Member(object obj, string key)
        {
            var d = obj as Dictionary<string, object>;
            object v;
            return d != null && d.TryGetValue(key, out v) ? v : null;
        }

        /// <summary>
        /// The raw JSON text of the top-level member <paramref name="key"/> of an object, or null when absent
        /// (used to save the settings object exactly as the bundle wrote it).
        /// </summary>
        public static string RawMember(string json, string key)
        {
            int i = 0;
            SkipWs(json, ref i);
            if (i >= json.Length || json[i] != '{') return null;
            i++;
            while (true)
            {
                SkipWs(json, ref i);
                if (i < json.Length && json[i] == '}') return null;
                string k = ReadString(json, ref i);
                SkipWs(json, ref i);
                Expect(json, ref i, ':');
                SkipWs(json, ref i);
                int start = i;
                ReadValue(json, ref i, 0);
                if (k == key) return json.Substring(start, i - start);
                SkipWs(json, ref i);
                if (i < json.Length && json[i] == ',') { i++; continue; }
                Expect(json, ref i, '}');
                return null;
            }
        }

        /// <summary>
        /// Every top-level member of an object as (name, raw JSON text of its value), in file order (used to
        /// keep members a settings file holds that this package does not use, byte for byte).
        /// Throws FormatException when <paramref name="json"/> is not one JSON object.
        /// </summary>
        public static List<KeyValuePair<string, string>> RawMembers(string json)
        {
            if (json == null) throw new FormatException("JSON: no text");
            var list = new List<KeyValuePair<string, string>>();
            int i = 0;
            SkipWs(json, ref i);
            Expect(json, ref i, '{');
            SkipWs(json, ref i);
            if (i < json.Length && json[i] == '}') { i++; }
            else
            {
                while (true)
                {
                    SkipWs(json, ref i);
                    string k = ReadString(json, ref i);
                    SkipWs(json, ref i);
                    Expect(json, ref i, ':');
                    SkipWs(json, ref i);
                    int start = i;
                    ReadValue(json, ref i, 0);
                    list.Add(new KeyValuePair<string, string>(k, json.Substring(start, i - start)));
                    SkipWs(json, ref i);
                    if (i < json.Length && json[i] == ',') { i++; continue; }
                    Expect(json, ref i, '}');
                    break;
                }
            }
            SkipWs(json, ref i);
            if (i != json.Length) throw new FormatException("JSON: unexpected text at offset " + i);
            return list;
        }

        /// <summary>
        /// Writes a parsed value back as JSON (Dictionary members in their insertion order, List, double,
        /// float, int, string, bool, null).
        /// </summary>
        public static string Write(object value)
        {
            var sb = new StringBuilder();
            AppendValue(sb, value);
            return sb.ToString();
        }

        /// <summary>Appends a parsed value as JSON (see <see cref="Write"/>).</summary>
        public static void AppendValue(StringBuilder sb, object value)
        {
            if (value == null) { sb.Append("null"); return; }
            if (value is string) { AppendString(sb, (string)value); return; }
            if (value is bool) { sb.Append((bool)value ? "true" : "false"); return; }
            if (value is double) { AppendNumber(sb, (double)value); return; }
            if (value is float) { AppendNumber(sb, (float)value); return; }
            if (value is int) { AppendNumber(sb, (int)value); return; }
            var d = value as Dictionary<string, object>;
            if (d != null)
            {
                sb.Append('{');
                bool first = true;
                foreach (var kv in d)
                {
                    if (!first) sb.Append(',');
                    first = false;
                    AppendString(sb, kv.Key);
                    sb.Append(':');
                    AppendValue(sb, kv.Value);
                }
                sb.Append('}');
                return;
            }
            var a = value as List<object>;
            if (a != null)
            {
                sb.Append('[');
                for (int i = 0; i < a.Count; i++)
                {
                    if (i > 0) sb.Append(',');
                    AppendValue(sb, a[i]);
                }
                sb.Append(']');
                return;
            }
            throw new ArgumentException("KindJson: cannot write a " + value.GetType().Name);
        }

        /// <summary>Short description of a reply for logs: "ok" or the error's field and message.</summary>
        public static string DescribeReply(string reply)
        {
            try
            {
                object o = Parse(reply);
                if (Member(o, "ok") is bool && (bool)Member(o, "ok")) return "ok";
                object err = Member(o, "error");
                return "error: " + Member(err, "field") + ": " + Member(err, "message");
            }
            catch (FormatException e) { return "unreadable reply (" + e.Message + "): " + reply; }
        }

        /// <summary>True when a parsed reply has "ok": true.</summary>
        public static bool IsOk(object reply)
        {
            object ok = Member(reply, "ok");
            return ok is bool && (bool)ok;
        }

        const int MaxDepth = 64;

        static void SkipWs(string s, ref int i)
        {
            while (i < s.Length && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
        }

        static void Expect(string s, ref int i, char c)
        {
            if (i >= s.Length || s[i] != c) throw new FormatException("JSON: expected '" + c + "' at offset " + i);
            i++;
        }

        static object ReadValue(string s, ref int i, int depth)
        {
            if (depth > MaxDepth) throw new FormatException("JSON: nested deeper than " + MaxDepth + " at offset " + i);
            SkipWs(s, ref i);
            if (i >= s.Length) throw new FormatException("JSON: unexpected end at offset " + i);
            char c = s[i];
            if (c == '{')
            {
                i++;
                var d = new Dictionary<string, object>();
                SkipWs(s, ref i);
                if (i < s.Length && s[i] == '}') { i++; return d; }
                while (true)
                {
                    SkipWs(s, ref i);
                    string k = ReadString(s, ref i);
                    SkipWs(s, ref i);
                    Expect(s, ref i, ':');
                    if (d.ContainsKey(k)) throw new FormatException("JSON: duplicate key " + Quote(k) + " at offset " + i);
                    d[k] = ReadValue(s, ref i, depth + 1);
                    SkipWs(s, ref i);
                    if (i < s.Length && s[i] == ',') { i++; continue; }
                    Expect(s, ref i, '}');
                    return d;
                }
            }
            if (c == '[')
            {
                i++;
                var a = new List<object>();
                SkipWs(s, ref i);
                if (i < s.Length && s[i] == ']') { i++; return a; }
                while (true)
                {
                    a.Add(ReadValue(s, ref i, depth + 1));
                    SkipWs(s, ref i);
                    if (i < s.Length && s[i] == ',') { i++; continue; }
                    Expect(s, ref i, ']');
                    return a;
                }
            }
            if (c == '"') return ReadString(s, ref i);
            if (Literal(s, ref i, "true")) return true;
            if (Literal(s, ref i, "false")) return false;
            if (Literal(s, ref i, "null")) return null;
            int start = i;
            if (i < s.Length && s[i] == '-') i++;
            while (i < s.Length && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == 'e' || s[i] == 'E' || s[i] == '+' || s[i] == '-')) i++;
            double v;
            if (i == start || !double.TryParse(s.Substring(start, i - start), NumberStyles.Float, CultureInfo.InvariantCulture, out v))
                throw new FormatException("JSON: unexpected character at offset " + start);
            return v;
        }

        static bool Literal(string s, ref int i, string lit)
        {
            if (string.CompareOrdinal(s, i, lit, 0, lit.Length) != 0) return false;
            i += lit.Length;
            return true;
        }

        static string ReadString(string s, ref int i)
        {
            Expect(s, ref i, '"');
            var sb = new StringBuilder();
            while (true)
            {
                if (i >= s.Length) throw new FormatException("JSON: unterminated string at offset " + i);
                char c = s[i++];
                if (c == '"') return sb.ToString();
                if (c != '\\') { sb.Append(c); continue; }
                if (i >= s.Length) throw new FormatException("JSON: unterminated escape at offset " + i);
                char e = s[i++];
                switch (e)
                {
                    case '"': sb.Append('"'); break;
                    case '\\': sb.Append('\\'); break;
                    case '/': sb.Append('/'); break;
                    case 'b': sb.Append('\b'); break;
                    case 'f': sb.Append('\f'); break;
                    case 'n': sb.Append('\n'); break;
                    case 'r': sb.Append('\r'); break;
                    case 't': sb.Append('\t'); break;
                    case 'u':
                        if (i + 4 > s.Length) throw new FormatException("JSON: short \\u escape at offset " + i);
                        sb.Append((char)int.Parse(s.Substring(i, 4), NumberStyles.HexNumber, CultureInfo.InvariantCulture));
                        i += 4;
                        break;
                    default: throw new FormatException("JSON: bad escape at offset " + (i - 1));
                }
            }
        }
    }
}
