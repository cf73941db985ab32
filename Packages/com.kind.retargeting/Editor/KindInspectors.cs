// Inspectors of the shells: the default fields plus the calibration, save/load, prop and preset buttons
// (ScriptReference/Editor.html, CustomEditor.html). Every one derives from KindLiveEditor, which
// repaints it periodically while playing so values the hub changes show live. Buttons that talk to the
// hub are live in Play mode only (the hub exists then); "Check scene" works in both modes.
using UnityEditor;
using UnityEngine;
using UnityEngine.UIElements;

namespace KindRetargeting.Editor
{
    /// <summary>
    /// Base inspector that refreshes itself every <see cref="RefreshSeconds"/> while playing (the original's
    /// base editor with periodic refresh), from EditorApplication.update.
    /// </summary>
    public abstract class KindLiveEditor : UnityEditor.Editor
    {
        /// <summary>Seconds between repaints in Play mode.</summary>
        public const double RefreshSeconds = 0.1;
        double next;

        protected virtual void OnEnable() { EditorApplication.update += Tick; }
        protected virtual void OnDisable() { EditorApplication.update -= Tick; }

        void Tick()
        {
            if (!Application.isPlaying) return;
            double now = EditorApplication.timeSinceStartup;
            if (now < next) return;
            next = now + RefreshSeconds;
            Repaint();
            OnLiveRefresh();
        }

        /// <summary>Called at each periodic refresh in Play mode (after Repaint).</summary>
        protected virtual void OnLiveRefresh() { }

        /// <summary>The "Check scene" button: runs KindSceneCheck, logs to the Console, opens the control window.</summary>
        protected static void SceneCheckButton()
        {
            if (GUILayout.Button("Check scene")) KindSceneCheck.RunFromMenu();
        }
    }

    [CustomEditor(typeof(CustomRetargetingScript))]
    public sealed class CustomRetargetingScriptEditor : KindLiveEditor
    {
        public override void OnInspectorGUI()
        {
            DrawDefaultInspector();
            var s = (CustomRetargetingScript)target;
            EditorGUILayout.Space();
            EditorGUILayout.LabelField("Settings file", s.SettingsFile);
            SceneCheckButton();
            if (!Application.isPlaying || s.Driver == null)
            {
                EditorGUILayout.HelpBox("Calibration and save/load work in Play mode, once the hub is running.", MessageType.Info);
                return;
            }
            if (s.Driver.LastError != null) EditorGUILayout.HelpBox(s.Driver.LastError, MessageType.Error);
            EditorGUILayout.LabelField("Calibration");
            GUILayout.BeginHorizontal();
            if (GUILayout.Button("I-Pose calibration")) s.I_PoseCalibration();
            if (GUILayout.Button("Reset pose and cache")) s.ResetPoseAndCache();
            if (GUILayout.Button("Head to forward")) s.CalibrateHeadToForward();
            GUILayout.EndHorizontal();
            GUILayout.BeginHorizontal();
            if (GUILayout.Button("Reset scale")) s.ResetScale();
            if (GUILayout.Button("Reset head scale")) s.ResetHeadScale();
            GUILayout.EndHorizontal();
            EditorGUILayout.LabelField("Settings", s.HasCachedSettings() ? "saved file exists" : "no saved file");
            GUILayout.BeginHorizontal();
            if (GUILayout.Button("Save")) s.SaveSettings();
            if (GUILayout.Button("Save as...")) { string p = EditorUtility.SaveFilePanel("Save settings", "", s.CharacterName + "_settings.json", "json"); if (!string.IsNullOrEmpty(p)) s.SaveSettings(p); }
            if (GUILayout.Button("Load")) s.LoadSettings();
            if (GUILayout.Button("Load...")) { string p = EditorUtility.OpenFilePanel("Load settings", "", "json"); if (!string.IsNullOrEmpty(p)) s.LoadSettings(p); }
            GUILayout.EndHorizontal();
        }
    }

    [CustomEditor(typeof(FingerShapedController))]
    public sealed class FingerShapedControllerEditor : KindLiveEditor
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

    [CustomEditor(typeof(PropLocationController))]
    public sealed class PropLocationControllerEditor : KindLiveEditor
    {
        public override void OnInspectorGUI()
        {
            DrawDefaultInspector();
            var p = (PropLocationController)target;
            EditorGUILayout.Space();
            GameObject sel = Selection.activeGameObject;
            EditorGUILayout.LabelField("Selected", sel != null ? sel.name : "(nothing)");
            GUILayout.BeginHorizontal();
            GUI.enabled = sel != null && sel != p.gameObject;
            if (GUILayout.Button("To left hand")) p.MoveToLeftHand();
            if (GUILayout.Button("To right hand")) p.MoveToRightHand();
            if (GUILayout.Button("To head")) p.MoveToHead();
            if (GUILayout.Button("Detach")) p.DetachProp();
            GUI.enabled = true;
            GUILayout.EndHorizontal();
            Props("Left hand", p.GetLeftHandProps());
            Props("Right hand", p.GetRightHandProps());
            Props("Head", p.GetHeadProps());
            SceneCheckButton();
        }

        static void Props(string label, GameObject[] props)
        {
            var names = new string[props.Length];
            for (int i = 0; i < props.Length; i++) names[i] = props[i].name;
            EditorGUILayout.LabelField(label, props.Length == 0 ? "-" : string.Join(", ", names));
        }
    }

    [CustomEditor(typeof(OffsetTransfer))]
    public sealed class OffsetTransferEditor : KindLiveEditor
    {
        public override void OnInspectorGUI()
        {
            DrawDefaultInspector();
            if (Application.isPlaying && GUILayout.Button("Calibrate (both avatars as they stand)")) ((OffsetTransfer)target).Calibrate();
        }
    }

    [CustomEditor(typeof(LimbWeightController))]
    public sealed class LimbWeightControllerEditor : KindLiveEditor
    {
        public override void OnInspectorGUI()
        {
            DrawDefaultInspector();
            var l = (LimbWeightController)target;
            var hub = l.GetComponent<CustomRetargetingScript>();
            if (!Application.isPlaying || hub == null || hub.Driver == null) return;
            string reply = hub.Driver.Command("{\"action\":\"ikState\"}");
            object state;
            try { state = KindJson.Parse(reply); } catch (System.FormatException) { return; }
            var limbs = KindJson.Member(state, "limbs") as System.Collections.Generic.List<object>;
            if (limbs == null) return;
            EditorGUILayout.LabelField("IK weights (live)");
            foreach (object limb in limbs)
            {
                object w = KindJson.Member(limb, "weight");
                EditorGUILayout.LabelField(KindJson.Member(limb, "limb") as string ?? "?", w is double ? ((double)w).ToString("0.00") : "-");
            }
        }
    }

    /// <summary>The SimplePoseTransfer inspector, built from SimplePoseTransferEditor.uxml (UI Toolkit), live while playing.</summary>
    [CustomEditor(typeof(SimplePoseTransfer))]
    public sealed class SimplePoseTransferEditor : KindLiveEditor
    {
        /// <summary>The UXML asset (the package's Editor folder).</summary>
        public const string UxmlPath = "Packages/com.kind.retargeting/Editor/SimplePoseTransferEditor.uxml";
        Label status;

        public override VisualElement CreateInspectorGUI()
        {
            var tree = AssetDatabase.LoadAssetAtPath<VisualTreeAsset>(UxmlPath);
            if (tree == null) return null; // falls back to OnInspectorGUI
            VisualElement root = tree.CloneTree();
            var t = (SimplePoseTransfer)target;
            Button init = root.Q<Button>("init");
            if (init != null) init.clicked += () => { if (Application.isPlaying) t.Init(); UpdateStatus(); };
            Button check = root.Q<Button>("check-scene");
            if (check != null) check.clicked += KindSceneCheck.RunFromMenu;
            status = root.Q<Label>("status");
            UpdateStatus();
            root.schedule.Execute(UpdateStatus).Every(250);
            return root;
        }

        public override void OnInspectorGUI()
        {
            DrawDefaultInspector();
            var t = (SimplePoseTransfer)target;
            EditorGUILayout.LabelField("Status", Status(t));
            if (Application.isPlaying && GUILayout.Button("Init")) t.Init();
            SceneCheckButton();
        }

        void UpdateStatus()
        {
            if (status != null && target != null) status.text = Status((SimplePoseTransfer)target);
        }

        static string Status(SimplePoseTransfer t)
        {
            if (!Application.isPlaying) return "Edit mode: the targets get their hubs at Play (Init).";
            int driven = 0;
            foreach (SimplePoseTransfer.TargetEntry x in t.targets) if (x != null && x.driver != null) driven++;
            return (t.IsInitialized ? "initialised: " : "NOT initialised (press Init): ") + driven + " of " + t.targets.Length + " targets driven";
        }
    }

    [CustomEditor(typeof(KindRuntime))]
    public sealed class KindRuntimeEditor : KindLiveEditor
    {
        public override void OnInspectorGUI()
        {
            DrawDefaultInspector();
            if (!Application.isPlaying) return;
            var r = (KindRuntime)target;
            EditorGUILayout.LabelField("Bundle", r.Status);
            EditorGUILayout.LabelField("Bundle file", r.BundleFromDisk ? r.BundlePath : "Resources (watching " + r.BundlePath + ")");
            EditorGUILayout.LabelField("Hot reloads", r.ReloadCount.ToString());
            if (GUILayout.Button("Reload bundle now")) r.Reload();
        }
    }

    [CustomEditor(typeof(RetargetingRemoteController))]
    public sealed class RetargetingRemoteControllerEditor : KindLiveEditor
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
