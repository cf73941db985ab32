// Tools > Kind Retargeting > Control Window: every character registered with the scene's KindRuntime,
// with calibrate / reset / save / load and the live parameters. Parameters come from the bundle
// (command(handle, {"action":"getCharacterData"}) -> "parameters": name, label, group, type, value,
// min/max or options; the declared table of src/live/remote/params.ts), so the window never hard-codes them.
using System.Collections.Generic;
using UnityEditor;
using UnityEngine;

namespace KindRetargeting.Editor
{
    public sealed class KindControlWindow : EditorWindow
    {
        Vector2 scroll;
        readonly Dictionary<int, List<object>> parameters = new Dictionary<int, List<object>>();
        readonly Dictionary<int, bool> open = new Dictionary<int, bool>();
        int seenReloads = -1;

        [MenuItem("Tools/Kind Retargeting/Control Window")]
        public static void Open() { GetWindow<KindControlWindow>("Kind Retargeting"); }

        Vector2 checkScroll;

        /// <summary>The scene check's results (KindSceneCheck.LastResults), with a Fix button where the fix is automatic.</summary>
        void DrawSceneCheck()
        {
            GUILayout.BeginHorizontal();
            EditorGUILayout.LabelField("Scene check");
            if (GUILayout.Button("Run", GUILayout.Width(60))) KindSceneCheck.Log(KindSceneCheck.Run());
            GUILayout.EndHorizontal();
            List<KindCheckResult> results = KindSceneCheck.LastResults;
            if (results == null) return;
            checkScroll = EditorGUILayout.BeginScrollView(checkScroll);
            foreach (KindCheckResult r in results)
            {
                MessageType type = r.Status == KindCheckStatus.Fail ? MessageType.Error : r.Status == KindCheckStatus.Warning ? MessageType.Warning : MessageType.Info;
                EditorGUILayout.HelpBox(r.ToString(), type);
                if (r.Fix != null && (r.Status == KindCheckStatus.Fail || r.Status == KindCheckStatus.Warning) && GUILayout.Button("Fix: " + r.FixDescription))
                {
                    r.Fix();
                    KindSceneCheck.Log(KindSceneCheck.Run());
                    GUIUtility.ExitGUI();
                }
            }
            EditorGUILayout.EndScrollView();
        }

        void OnGUI()
        {
            DrawSceneCheck();
            KindRuntime rt = KindRuntime.Current;
            if (!Application.isPlaying || rt == null)
            {
                EditorGUILayout.HelpBox("Enter Play mode in a scene with Kind Retargeting shells to see its characters.", MessageType.Info);
                return;
            }
            EditorGUILayout.LabelField("Bundle", rt.Status);
            if (rt.ReloadCount != seenReloads) { seenReloads = rt.ReloadCount; parameters.Clear(); }
            scroll = EditorGUILayout.BeginScrollView(scroll);
            foreach (KindCharacter c in rt.Characters)
            {
                bool isOpen;
                open.TryGetValue(c.Handle, out isOpen);
                isOpen = EditorGUILayout.Foldout(isOpen, c.Name + "  (hub " + c.Handle + ")");
                open[c.Handle] = isOpen;
                if (!isOpen) continue;
                DrawCharacter(rt, c);
            }
            EditorGUILayout.EndScrollView();
        }

        void DrawCharacter(KindRuntime rt, KindCharacter c)
        {
            var shell = c.Owner as CustomRetargetingScript;
            GUILayout.BeginHorizontal();
            if (GUILayout.Button("Calibrate I-pose")) Send(rt, c, "{\"action\":\"calibrateIPose\"}");
            if (GUILayout.Button("Reset")) Send(rt, c, "{\"action\":\"resetCalibration\"}");
            if (GUILayout.Button("Head forward")) Send(rt, c, "{\"action\":\"calibrateHeadForward\"}");
            GUI.enabled = shell != null;
            if (GUILayout.Button("Save")) shell.SaveSettings();
            if (GUILayout.Button("Load")) { shell.LoadSettings(); parameters.Remove(c.Handle); }
            GUI.enabled = true;
            if (GUILayout.Button("Refresh")) parameters.Remove(c.Handle);
            GUILayout.EndHorizontal();

            List<object> list;
            if (!parameters.TryGetValue(c.Handle, out list))
            {
                string reply = Send(rt, c, "{\"action\":\"getCharacterData\"}");
                list = reply == null ? null : KindJson.Member(KindJson.Parse(reply), "parameters") as List<object>;
                parameters[c.Handle] = list ?? new List<object>();
            }
            if (list == null) return;
            string group = null;
            foreach (object p in list)
            {
                string g = KindJson.Member(p, "group") as string;
                if (g != group) { group = g; EditorGUILayout.LabelField(group ?? ""); }
                DrawParameter(rt, c, (Dictionary<string, object>)p);
            }
        }

        void DrawParameter(KindRuntime rt, KindCharacter c, Dictionary<string, object> p)
        {
            string pname = p["name"] as string;
            string label = KindJson.Member(p, "label") as string ?? pname;
            string type = KindJson.Member(p, "type") as string;
            object value = KindJson.Member(p, "value");
            if (type == "number" && value is double)
            {
                float v = (float)(double)value;
                object min = KindJson.Member(p, "min"), max = KindJson.Member(p, "max");
                float nv = min is double && max is double
                    ? EditorGUILayout.Slider(label, v, (float)(double)min, (float)(double)max)
                    : EditorGUILayout.FloatField(label, v);
                if (nv != v && Set(rt, c, pname, KindJson.Number(nv))) p["value"] = (double)nv;
            }
            else if (type == "boolean" && value is bool)
            {
                bool v = (bool)value;
                bool nv = EditorGUILayout.Toggle(label, v);
                if (nv != v && Set(rt, c, pname, nv ? "true" : "false")) p["value"] = nv;
            }
            else if (type == "enum")
            {
                var options = KindJson.Member(p, "options") as List<object>;
                if (options == null) return;
                var names = new string[options.Count];
                int at = 0;
                for (int i = 0; i < names.Length; i++) { names[i] = options[i] as string; if (names[i] == value as string) at = i; }
                int ni = EditorGUILayout.Popup(label, at, names);
                if (ni != at && Set(rt, c, pname, KindJson.Quote(names[ni]))) p["value"] = names[ni];
            }
            else EditorGUILayout.LabelField(label, value == null ? "null" : value.ToString());
        }

        bool Set(KindRuntime rt, KindCharacter c, string property, string jsonValue)
        {
            string reply = Send(rt, c, "{\"action\":\"updateValueRealtime\",\"property\":" + KindJson.Quote(property) + ",\"value\":" + jsonValue + "}");
            return reply != null && KindJson.IsOk(KindJson.Parse(reply));
        }

        static string Send(KindRuntime rt, KindCharacter c, string json)
        {
            try
            {
                string reply = rt.Command(c.Handle, json);
                string d = KindJson.DescribeReply(reply);
                if (d != "ok") Debug.LogWarning("KindRetargeting '" + c.Name + "': " + json + " -> " + d);
                return reply;
            }
            catch (System.Exception e)
            {
                Debug.LogError("KindRetargeting '" + c.Name + "': " + e.Message);
                return null;
            }
        }

        void OnInspectorUpdate() { Repaint(); }
    }
}
