// Inspectors of the shells: the default fields plus the calibration, save/load and preset buttons
// (ScriptReference/Editor.html, CustomEditor.html). Buttons are live in Play mode only (the hub exists then).
using UnityEditor;
using UnityEngine;

namespace Kind.Retargeting.Editor
{
    [CustomEditor(typeof(CustomRetargetingScript))]
    public sealed class CustomRetargetingScriptEditor : UnityEditor.Editor
    {
        public override void OnInspectorGUI()
        {
            DrawDefaultInspector();
            var s = (CustomRetargetingScript)target;
            EditorGUILayout.Space();
            if (!Application.isPlaying || s.Driver == null)
            {
                EditorGUILayout.HelpBox("Calibration and save/load work in Play mode, once the hub is running.", MessageType.Info);
                return;
            }
            if (s.Driver.LastError != null) EditorGUILayout.HelpBox(s.Driver.LastError, MessageType.Error);
            EditorGUILayout.LabelField("Calibration");
            GUILayout.BeginHorizontal();
            if (GUILayout.Button("Calibrate I-pose")) s.CalibrateIPose();
            if (GUILayout.Button("Reset")) s.ResetCalibration();
            if (GUILayout.Button("Head forward")) s.CalibrateHeadForward();
            GUILayout.EndHorizontal();
            EditorGUILayout.LabelField("Settings", s.SettingsFile);
            GUILayout.BeginHorizontal();
            if (GUILayout.Button("Save")) s.SaveSettings(s.SettingsFile);
            if (GUILayout.Button("Save as...")) { string p = EditorUtility.SaveFilePanel("Save settings", "", s.CharacterName + ".json", "json"); if (!string.IsNullOrEmpty(p)) s.SaveSettings(p); }
            if (GUILayout.Button("Load")) s.LoadSettings(s.SettingsFile);
            if (GUILayout.Button("Load...")) { string p = EditorUtility.OpenFilePanel("Load settings", "", "json"); if (!string.IsNullOrEmpty(p)) s.LoadSettings(p); }
            GUILayout.EndHorizontal();
        }
    }

    [CustomEditor(typeof(FingerShapedController))]
    public sealed class FingerShapedControllerEditor : UnityEditor.Editor
    {
        static readonly string[] Presets = { "Rock", "Paper", "Scissors", "V", "Index point", "Reset" };

        public override void OnInspectorGUI()
        {
            DrawDefaultInspector();
            if (!Application.isPlaying) return;
            var f = (FingerShapedController)target;
            EditorGUILayout.Space();
            foreach (string hand in new[] { "left", "right", "both" })
            {
                GUILayout.BeginHorizontal();
                GUILayout.Label(hand, GUILayout.Width(40));
                for (int i = 0; i < Presets.Length; i++)
                    if (GUILayout.Button(Presets[i])) f.ApplyPreset(hand, (KindHandPreset)i);
                GUILayout.EndHorizontal();
            }
        }
    }

    [CustomEditor(typeof(OffsetTransfer))]
    public sealed class OffsetTransferEditor : UnityEditor.Editor
    {
        public override void OnInspectorGUI()
        {
            DrawDefaultInspector();
            if (Application.isPlaying && GUILayout.Button("Calibrate (both avatars as they stand)")) ((OffsetTransfer)target).Calibrate();
        }
    }

    [CustomEditor(typeof(KindRuntime))]
    public sealed class KindRuntimeEditor : UnityEditor.Editor
    {
        public override void OnInspectorGUI()
        {
            DrawDefaultInspector();
            if (!Application.isPlaying) return;
            var r = (KindRuntime)target;
            EditorGUILayout.LabelField("Bundle", r.Status);
            EditorGUILayout.LabelField("Hot reloads", r.ReloadCount.ToString());
            if (GUILayout.Button("Reload bundle now")) r.Reload();
        }
    }

    [CustomEditor(typeof(RetargetingRemoteController))]
    public sealed class RetargetingRemoteControllerEditor : UnityEditor.Editor
    {
        public override void OnInspectorGUI()
        {
            DrawDefaultInspector();
            var r = (RetargetingRemoteController)target;
            EditorGUILayout.LabelField("URL", r.Url);
            if (Application.isPlaying) EditorGUILayout.LabelField("Clients", r.ClientCount.ToString());
        }
    }
}
