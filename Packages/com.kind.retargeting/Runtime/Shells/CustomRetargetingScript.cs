// The main shell: one avatar retargeted from one source by a TypeScript hub. The public fields are compared
// every frame with the values last sent and pushed to the hub through command(handle,
// {"action":"updateValueRealtime",...}) when they change (a script writing a field at runtime takes effect
// on the next frame, as in the original); the buttons
// send calibrateIPose / resetCalibration / calibrateHeadForward; save/load use exportSettings /
// applySettings and write the file atomically (temp file, then rename). The public members are the
// original KindRetargeting's (I_PoseCalibration, SaveSettings, SetAvatarScale, ...; README "Migrating
// from the original components"), plus this package's extras.
using System;
using System.IO;
using System.Text;
using KindRetargeting.EnumsList;
using UnityEngine;
using UnityEngine.Serialization;

namespace KindRetargeting
{
    /// <summary>IK mode of the hub (setup option "ik" and parameter ikMode).</summary>
    public enum KindIKMode { Auto, On, Off }
    /// <summary>Hips placement (setup option "hipsMode").</summary>
    public enum KindHipsMode { Room, Scaled }

    /// <summary>
    /// Retargets <see cref="source"/> onto <see cref="targetAnimator"/>. Update: one update() call, body
    /// rotations and hips position applied (body and IK); LateUpdate: head rotation, avatar scale (hips) and
    /// head scale applied (README "Execution order"). Settings are loaded on start when the file exists
    /// and saved automatically when the application quits (<see cref="autoSaveOnQuit"/>).
    /// </summary>
    [DefaultExecutionOrder(0)]
    [DisallowMultipleComponent]
    [AddComponentMenu("Kind Retargeting/Custom Retargeting Script")]
    public class CustomRetargetingScript : MonoBehaviour
    {
        [Header("Character")]
        [Tooltip("Hub name; the remote protocol's characterName. Empty: this GameObject's name.")]
        public string characterName = "";
        [Tooltip("The driving skeleton (Animator source, OptiTrack source, ...). The original's field name.")]
        [FormerlySerializedAs("source")]
        public KindPoseSource optitrackSource;
        [Tooltip("The avatar to drive (humanoid Animator without a playing controller). Empty: this GameObject's Animator.")]
        public Animator targetAnimator;

        [Header("Companion components (the original's fields; empty: the one on this GameObject, if any)")]
        public TwoBoneIKSolver ikSolver;
        public LimbWeightController limbWeight;
        public FingerShapedController fingerShaped;
        public PropLocationController propLocation;

        /// <summary>Same as <see cref="optitrackSource"/> (this package's earlier name, kept).</summary>
        public KindPoseSource source { get { return optitrackSource; } set { optitrackSource = value; } }

        [Header("Feet (metres, in the foot's axes)")]
        [Tooltip("Both feet: positive toward the toes.")]
        [Range(-0.5f, 0.5f)] public float footFrontBackOffset;
        [Tooltip("Both feet: positive outward (away from the midline), so the sign is mirrored left/right.")]
        [Range(-0.5f, 0.5f)] public float footInOutOffset;
        [Tooltip("Extra per-foot trims, added to the pair above (the sum is clamped to -0.5..0.5).")]
        [Range(-0.5f, 0.5f)] public float leftFootFrontBack, leftFootInOut, rightFootFrontBack, rightFootInOut;

        [Header("Floor and seat (metres)")]
        [Range(-10f, 10f)] public float floorHeight;
        [Tooltip("Added to a Chair prop's seat height when seated.")]
        [Range(-1f, 1f)] public float chairSeatHeightOffset;

        [Header("Head (degrees about the head's reference axes, as Quaternion.Euler)")]
        [Range(-180f, 180f)] public float headRotationOffsetX;
        [Range(-180f, 180f)] public float headRotationOffsetY;
        [Range(-180f, 180f)] public float headRotationOffsetZ;

        [Header("Scale")]
        [Range(0.1f, 3f)] public float avatarScale = 1f;
        [Range(0.1f, 3f)] public float headScale = 1f;

        [Header("Setup (applied when the hub is created)")]
        public KindIKMode ikMode = KindIKMode.Auto;
        public KindHipsMode hipsMode = KindHipsMode.Room;
        [Tooltip("None: the finger controls only; MuscleData: the source's finger muscles; Rotation: the source's finger rotations. An enabled FingerShapedController uses None while enabled.")]
        public FingerCopyMode fingerCopyMode = FingerCopyMode.Rotation;
        [Tooltip("Send the source relative to its root, so this avatar stands at its own root as the source stands at its root (place avatars side by side). Off: world pose; keep this avatar's root at the origin.")]
        public bool followTargetRoot = true;

        [Header("Settings file")]
        [Tooltip("Settings JSON (src/rig/settings.ts format). Empty: the standard location, %LocalAppData%\\Unity\\<company>\\<product>\\RetargetingSettings\\<target>_settings.json on Windows (see SettingsFile).")]
        public string settingsPath = "";
        public bool loadSettingsOnStart = true;
        [Tooltip("Save the settings (atomically) when the application quits.")]
        public bool autoSaveOnQuit = true;

        KindAvatarDriver driver;
        readonly KindSettingsSession settingsSession = new KindSettingsSession();
        bool poseThisFrame;
        // the value each field last sent (slots: see PushInspectorValues); compared every frame
        readonly KindSentValues sent = new KindSentValues(11);
        readonly KindSentValues sentFingerMode = new KindSentValues(1);

        /// <summary>The hub's name.</summary>
        public string CharacterName { get { return string.IsNullOrEmpty(characterName) ? name : characterName; } }
        /// <summary>The driver (null until Start succeeded).</summary>
        public KindAvatarDriver Driver { get { return driver; } }
        /// <summary>The head rotation offset as one vector (degrees).</summary>
        public Vector3 HeadRotationOffset
        {
            get { return new Vector3(headRotationOffsetX, headRotationOffsetY, headRotationOffsetZ); }
            set { headRotationOffsetX = value.x; headRotationOffsetY = value.y; headRotationOffsetZ = value.z; if (driver != null) PushInspectorValues(); }
        }

        /// <summary>The platform whose settings location applies (the Editor's or the player's).</summary>
        public static KindSettingsPlatform SettingsPlatform
        {
            get
            {
#if UNITY_EDITOR_WIN || (UNITY_STANDALONE_WIN && !UNITY_EDITOR)
                return KindSettingsPlatform.Windows;
#elif UNITY_EDITOR_OSX || (UNITY_STANDALONE_OSX && !UNITY_EDITOR)
                return KindSettingsPlatform.MacOS;
#elif UNITY_EDITOR_LINUX || (UNITY_STANDALONE_LINUX && !UNITY_EDITOR)
                return KindSettingsPlatform.Linux;
#else
                return KindSettingsPlatform.Other;
#endif
            }
        }

        /// <summary>
        /// The settings file used by save/load: <see cref="settingsPath"/> when set, else the standard location
        /// (<see cref="KindSettingsFile"/>: %LocalAppData%\Unity\{Application.companyName}\{Application.productName}\
        /// RetargetingSettings\{target name}_settings.json on Windows, the platform's equivalent elsewhere),
        /// the target name being the target Animator's GameObject name (else the character name).
        /// </summary>
        public string SettingsFile
        {
            get
            {
                if (!string.IsNullOrEmpty(settingsPath)) return settingsPath;
                string target = targetAnimator != null ? targetAnimator.gameObject.name : CharacterName;
                return KindSettingsFile.ForThisMachine(SettingsPlatform, Application.persistentDataPath, Application.companyName, Application.productName, target);
            }
        }

        void OnEnable() { Application.quitting += OnApplicationQuitting; }
        void OnDisable() { Application.quitting -= OnApplicationQuitting; }

        /// <summary>Application.quitting: the atomic save of <see cref="SaveSettings()"/> when <see cref="autoSaveOnQuit"/> (and a hub exists).</summary>
        void OnApplicationQuitting()
        {
            if (autoSaveOnQuit && driver != null) SaveSettings();
        }

        /// <summary>
        /// The seat height offset (metres; the original's property, which its LimbWeightController sets). Here it
        /// is the setting the hub's limb weights apply in proportion to the chair's closeness (chairSeatOffset):
        /// reading gives <see cref="chairSeatHeightOffset"/>, setting changes it and sends it.
        /// </summary>
        public float ChairSeatHeightOffset
        {
            get { return chairSeatHeightOffset; }
            set { chairSeatHeightOffset = Mathf.Clamp(value, -1f, 1f); if (driver != null) PushInspectorValues(); }
        }

        void Awake()
        {
            if (targetAnimator == null) targetAnimator = GetComponent<Animator>();
            if (ikSolver == null) ikSolver = GetComponent<TwoBoneIKSolver>();
            if (limbWeight == null) limbWeight = GetComponent<LimbWeightController>();
            if (fingerShaped == null) fingerShaped = GetComponent<FingerShapedController>();
            if (propLocation == null) propLocation = GetComponent<PropLocationController>();
        }

        void Start()
        {
            if (targetAnimator == null) targetAnimator = GetComponent<Animator>();
            if (source == null || targetAnimator == null)
            {
                Debug.LogError("KindRetargeting '" + CharacterName + "': source and target Animator must be set", this);
                enabled = false;
                return;
            }
            sent.Forget();
            TryCreate();
        }

        void TryCreate()
        {
            if (driver != null || !source.IsReady) return;
            try
            {
                string options = "{\"ik\":\"" + IkName(ikMode) + "\",\"hipsMode\":\"" + (hipsMode == KindHipsMode.Room ? "room" : "scaled") + "\",\"fingers\":\"" + FingerName(fingerCopyMode) + "\"}";
                driver = new KindAvatarDriver(KindRuntime.Get(), CharacterName, source, targetAnimator, options, this);
                driver.SourceInRootSpace = followTargetRoot;
                sent.Forget();
                sentFingerMode.Forget();
                sentFingerMode.Changed(0, (int)fingerCopyMode); // the hub was created with it
            }
            catch (Exception e)
            {
                Debug.LogError("KindRetargeting '" + CharacterName + "': could not create the hub: " + e.Message, this);
                enabled = false;
                return;
            }
            if (loadSettingsOnStart && HasCachedSettings()) LoadSettings(SettingsFile);
        }

        internal static string IkName(KindIKMode m) { return m == KindIKMode.On ? "on" : m == KindIKMode.Off ? "off" : "auto"; }
        /// <summary>The protocol's name of a finger copy mode.</summary>
        public static string FingerName(FingerCopyMode m) { return m == FingerCopyMode.None ? "none" : m == FingerCopyMode.MuscleData ? "muscleData" : "rotation"; }

        /// <summary>
        /// Drops the hub; the next Update creates it again on the source's bones as they stand then (their
        /// rest pose), with the Inspector's values sent again. For a source whose rest changed (the browser
        /// mocap's re-calibration: KindBrowserMocapSource calls it).
        /// </summary>
        public void RestartHub()
        {
            if (driver != null) { driver.Destroy(); driver = null; }
        }

        void Update()
        {
            poseThisFrame = false;
            if (driver == null) { TryCreate(); if (driver == null) return; }
            // as the original reads its fields every frame: a field written by any script (or the Inspector)
            // reaches the hub on the next frame; only a changed value is sent (no allocation otherwise)
            PushInspectorValues();
            poseThisFrame = driver.Step(Time.deltaTime);
            if (poseThisFrame) driver.ApplyBody();
        }

        void LateUpdate()
        {
            if (driver != null && poseThisFrame) driver.ApplyHead();
        }

        /// <summary>
        /// Compares the public fields with the values last sent (<see cref="KindSentValues"/>) and sends the
        /// ones that changed (updateValueRealtime). Called every frame before the step, and at once by the
        /// Set* methods and setters.
        /// </summary>
        void PushInspectorValues()
        {
            driver.SourceInRootSpace = followTargetRoot;
            bool shaped = fingerShaped != null && fingerShaped.isActiveAndEnabled; // it holds the fingers (None) while enabled
            if (!shaped && sentFingerMode.Changed(0, (int)fingerCopyMode))
                driver.SetValue("fingerCopyMode", FingerName(fingerCopyMode), this);
            Push(0, "avatarScale", avatarScale);
            Push(1, "headScale", headScale);
            Push(2, "headRotationOffsetX", headRotationOffsetX);
            Push(3, "headRotationOffsetY", headRotationOffsetY);
            Push(4, "headRotationOffsetZ", headRotationOffsetZ);
            Push(5, "floorHeight", floorHeight);
            Push(6, "leftFootFrontBack", Foot(footFrontBackOffset, leftFootFrontBack));
            Push(7, "leftFootInOut", Foot(footInOutOffset, leftFootInOut));
            Push(8, "rightFootFrontBack", Foot(footFrontBackOffset, rightFootFrontBack));
            Push(9, "rightFootInOut", Foot(footInOutOffset, rightFootInOut));
            Push(10, "chairSeatOffset", chairSeatHeightOffset);
        }

        /// <summary>The hub set floorHeight itself (autoFloorHeight): the field holds it, no need to send it back.</summary>
        internal void MarkFloorHeightSent() { sent.Mark(5, floorHeight); }

        static float Foot(float both, float trim) { return Mathf.Clamp(both + trim, -0.5f, 0.5f); }

        void Push(int slot, string property, float value)
        {
            if (!sent.Changed(slot, value)) return;
            driver.SetValue(property, value, this);
        }

        /// <summary>Sends a command to this hub (JSON, the remote protocol's shapes without characterName) and returns the reply, or null when there is no hub.</summary>
        public string Command(string json)
        {
            return driver == null ? null : driver.CommandLogged(json, this);
        }

        /// <summary>
        /// The source bone's RAW world position of the last frame (as the source sent it, before the
        /// bundle's One-Euro source filter; Unity world, metres), through the bridge's sourcePose command.
        /// False when there is no hub, no frame yet or the source has no such bone. Allocates (a JSON
        /// reply): for tools and the inspector, not per frame.
        /// </summary>
        public bool TryGetRawWorldPosition(HumanBodyBones bone, out Vector3 position)
        {
            position = Vector3.zero;
            var v = SourcePoseValues(bone, "raw", "position", 3);
            if (v == null) return false;
            position = new Vector3((float)v[0], (float)v[1], (float)v[2]);
            return true;
        }

        /// <summary>The source bone's RAW world rotation of the last frame (see <see cref="TryGetRawWorldPosition"/>).</summary>
        public bool TryGetRawWorldRotation(HumanBodyBones bone, out Quaternion rotation)
        {
            rotation = Quaternion.identity;
            var v = SourcePoseValues(bone, "raw", "rotation", 4);
            if (v == null) return false;
            rotation = new Quaternion((float)v[0], (float)v[1], (float)v[2], (float)v[3]);
            return true;
        }

        /// <summary>The source bone's filtered world position of the last frame (what the hub read).</summary>
        public bool TryGetFilteredWorldPosition(HumanBodyBones bone, out Vector3 position)
        {
            position = Vector3.zero;
            var v = SourcePoseValues(bone, "filtered", "position", 3);
            if (v == null) return false;
            position = new Vector3((float)v[0], (float)v[1], (float)v[2]);
            return true;
        }

        double[] SourcePoseValues(HumanBodyBones bone, string which, string field, int count)
        {
            if (driver == null || bone < 0 || bone >= HumanBodyBones.LastBone) return null;
            string reply;
            try { reply = driver.Command("{\"action\":\"sourcePose\",\"bone\":" + KindJson.Quote(bone.ToString()) + "}"); }
            catch (Exception) { return null; }
            object o;
            try { o = KindJson.Parse(reply); }
            catch (FormatException) { return null; }
            if (!KindJson.IsOk(o)) return null;
            var list = KindJson.Member(KindJson.Member(o, which), field) as System.Collections.Generic.List<object>;
            if (list == null || list.Count != count) return null;
            var v = new double[count];
            for (int i = 0; i < count; i++)
            {
                if (!(list[i] is double)) return null;
                v[i] = (double)list[i];
            }
            return v;
        }

        // ---- the original API ----------------------------------------------------------------------

        /// <summary>Calibrates on the current source frame with the performer in an I-pose (calibrateIPose).</summary>
        [ContextMenu("I-Pose calibration")]
        public void I_PoseCalibration() { Command("{\"action\":\"calibrateIPose\"}"); }

        /// <summary>Back to the uncalibrated pose: clears the rotation-offset cache and the hips height (resetCalibration).</summary>
        [ContextMenu("Reset pose and cache")]
        public void ResetPoseAndCache() { Command("{\"action\":\"resetCalibration\"}"); }

        /// <summary>Takes the head's current direction as forward (calibrateHeadForward).</summary>
        [ContextMenu("Calibrate head to forward")]
        public void CalibrateHeadToForward() { Command("{\"action\":\"calibrateHeadForward\"}"); }

        /// <summary>Saves the settings to <see cref="SettingsFile"/>, atomically (also done on quit).</summary>
        [ContextMenu("Save settings")]
        public void SaveSettings() { SaveSettings(SettingsFile); }

        /// <summary>Loads <see cref="SettingsFile"/> (also done on start when it exists).</summary>
        [ContextMenu("Load settings")]
        public void LoadSettings() { LoadSettings(SettingsFile); }

        /// <summary>True when <see cref="SettingsFile"/> exists.</summary>
        public bool HasCachedSettings() { return File.Exists(SettingsFile); }

        /// <summary>
        /// The avatar scale in force: the hub's value (also after a remote change or autoCalibrateAll, read
        /// through exportSettings; allocates, not for every frame), copied into <see cref="avatarScale"/>;
        /// the field without a hub.
        /// </summary>
        public float GetAvatarScale() { PullLiveScales(); return avatarScale; }
        /// <summary>Sets the avatar scale (clamped to 0.1..3) and sends it.</summary>
        public void SetAvatarScale(float scale) { avatarScale = Mathf.Clamp(scale, 0.1f, 3f); if (driver != null) PushInspectorValues(); }
        /// <summary>Avatar scale back to 1.</summary>
        public void ResetScale() { SetAvatarScale(1f); }
        /// <summary>The head scale in force (the hub's value; see <see cref="GetAvatarScale"/>).</summary>
        public float GetHeadScale() { PullLiveScales(); return headScale; }

        /// <summary>Reads avatarScale and headScale from the hub into the fields (marked as sent: not re-sent).</summary>
        void PullLiveScales()
        {
            if (driver == null) return;
            string settings;
            try { settings = ExportSettingsJson(); }
            catch (Exception) { return; }
            if (settings == null) return;
            object s = KindJson.Parse(settings);
            avatarScale = Num(s, "avatarScale", avatarScale);
            headScale = Num(s, "headScale", headScale);
            sent.Mark(0, avatarScale);
            sent.Mark(1, headScale);
        }
        /// <summary>Sets the head scale (clamped to 0.1..3) and sends it.</summary>
        public void SetHeadScale(float scale) { headScale = Mathf.Clamp(scale, 0.1f, 3f); if (driver != null) PushInspectorValues(); }
        /// <summary>Head scale back to 1.</summary>
        public void ResetHeadScale() { SetHeadScale(1f); }

        /// <summary>
        /// Turns finger shaping on or off: enables/disables the FingerShapedController on this GameObject
        /// (its curls drive the fingers while enabled; disabled, <see cref="fingerCopyMode"/> applies again).
        /// Without one, sends fingerCopyMode None (on) or <see cref="fingerCopyMode"/> (off).
        /// </summary>
        public void SetFingerShapedEnabled(bool enabled)
        {
            var shaped = GetComponent<FingerShapedController>();
            if (shaped != null) { shaped.enabled = enabled; return; }
            if (driver != null) driver.SetValue("fingerCopyMode", FingerName(enabled ? FingerCopyMode.None : fingerCopyMode), this);
        }

        // ---- this package's extras -----------------------------------------------------------------

        /// <summary>Same as <see cref="I_PoseCalibration"/>.</summary>
        public void CalibrateIPose() { I_PoseCalibration(); }
        /// <summary>Same as <see cref="ResetPoseAndCache"/>.</summary>
        public void ResetCalibration() { ResetPoseAndCache(); }
        /// <summary>Same as <see cref="CalibrateHeadToForward"/>.</summary>
        public void CalibrateHeadForward() { CalibrateHeadToForward(); }

        /// <summary>
        /// I-pose calibration, floor height and head forward in one (autoCalibrateAll), then the new avatar
        /// and head scales are read back and the settings saved, as the original's remote autoCalibrateAll
        /// does ("+ 저장"). An autoCalibrateAll sent over the WebSocket (RetargetingRemoteController) saves the
        /// same way, through <see cref="SaveAfterAutoCalibrateAll"/>.
        /// </summary>
        [ContextMenu("Auto calibrate all")]
        public void AutoCalibrateAll()
        {
            string reply = Command("{\"action\":\"autoCalibrateAll\"}");
            if (reply == null || !KindJson.IsOk(KindJson.Parse(reply))) return;
            SaveAfterAutoCalibrateAll();
        }

        /// <summary>After an autoCalibrateAll that succeeded: the hub's new avatar and head scales read back into the fields, then <see cref="SaveSettings()"/>.</summary>
        internal void SaveAfterAutoCalibrateAll()
        {
            PullLiveScales();
            SaveSettings();
        }

        string ExportSettingsJson()
        {
            string reply = Command("{\"action\":\"exportSettings\"}");
            if (reply == null) return null;
            string settings = KindJson.RawMember(reply, "settings");
            if (settings == null) throw new FormatException("exportSettings reply has no settings: " + reply);
            return settings;
        }

        /// <summary>
        /// Writes the hub's settings (exportSettings) to <paramref name="path"/>: to "&lt;path&gt;.tmp" first, then
        /// renamed over the old file, so a failure never leaves a half-written settings file. Members of the
        /// old file this package does not use (the original KindRetargeting's fields) are kept in the new one;
        /// an old file that cannot be read is moved aside to {target}_settings.unreadable-{time}.json first,
        /// and a file written by the original or not loaded in this session is copied to
        /// {target}_settings.original-{time}.json before the first save that changes it (said in the Console;
        /// <see cref="KindSettingsSaver"/>). A value the load did not import (e.g. out of range) stays in the
        /// file as it was unless it was set here since.
        /// </summary>
        public bool SaveSettings(string path)
        {
            var s = new KindSettingsSaver(ExportSettingsJson, () => path, settingsSession);
            if (s.Save())
            {
                if (s.BackedUp != null)
                    Debug.LogWarning("KindRetargeting '" + CharacterName + "': the settings file " + path + " (" + s.BackedUpReason + ") was copied to " + s.BackedUp + " before this first save changed it", this);
                if (s.MovedAside != null)
                    Debug.LogWarning("KindRetargeting '" + CharacterName + "': the previous settings file could not be read (" + s.MovedAsideReason + "); moved aside to " + s.MovedAside + " before saving", this);
                Debug.Log("KindRetargeting '" + CharacterName + "': settings saved to " + path, this);
                return true;
            }
            Debug.LogError("KindRetargeting '" + CharacterName + "': " + s.LastError, this);
            return false;
        }

        /// <summary>What the last <see cref="LoadSettings(string)"/> found and imported (null before any).</summary>
        public KindSettingsReport LastSettingsReport { get; private set; }

        /// <summary>
        /// Reads a settings file, in this package's format or the original KindRetargeting's
        /// (<see cref="KindSettingsImport"/>: the original's fields imported by their names, the rest kept in
        /// the file), sends applySettings and says once in the Console what was imported and what was not.
        /// A file that cannot be read (not JSON, wrong types, or refused by the hub) is moved aside to
        /// {target}_settings.unreadable-{time}.json, so the next save never overwrites it; the hub then keeps
        /// its settings.
        /// </summary>
        public bool LoadSettings(string path)
        {
            KindSettingsReport report;
            string applied;
            try
            {
                report = KindSettingsLoader.Load(path, ExportSettingsJson,
                    settings => Command("{\"action\":\"applySettings\",\"settings\":" + settings + "}"), DateTime.UtcNow, out applied, settingsSession);
            }
            catch (Exception e) { Debug.LogError("KindRetargeting '" + CharacterName + "': could not load " + path + ": " + e.Message, this); return false; }
            LastSettingsReport = report;
            if (applied != null)
            {
                PullSettings(applied);
                Debug.Log("KindRetargeting '" + CharacterName + "': " + report.Summary(path), this);
                return true;
            }
            // not moved aside (e.g. locked): no auto-save this session, so it is not overwritten on quit
            if (report.MovedTo == null) autoSaveOnQuit = false;
            Debug.LogWarning("KindRetargeting '" + CharacterName + "': " + report.Summary(path) + (report.MovedTo == null ? " (auto-save on quit is off for this session so it is not overwritten)" : ""), this);
            return false;
        }

        /// <summary>
        /// Copies scalar settings from a settings JSON into the inspector fields (so a later inspector edit
        /// does not undo a load). Feet: the pair gets the two feet's mean, the per-foot trims the rest.
        /// </summary>
        void PullSettings(string settingsJson)
        {
            object s = KindJson.Parse(settingsJson);
            avatarScale = Num(s, "avatarScale", avatarScale);
            headScale = Num(s, "headScale", headScale);
            floorHeight = Num(s, "floorHeight", floorHeight);
            chairSeatHeightOffset = Num(s, "chairSeatOffset", chairSeatHeightOffset);
            var head = KindJson.Member(s, "headRotationOffset") as System.Collections.Generic.List<object>;
            if (head != null && head.Count == 3)
            {
                headRotationOffsetX = (float)(double)head[0];
                headRotationOffsetY = (float)(double)head[1];
                headRotationOffsetZ = (float)(double)head[2];
            }
            object feet = KindJson.Member(s, "footOffsets");
            float lfb = Num(KindJson.Member(feet, "left"), "frontBack", Foot(footFrontBackOffset, leftFootFrontBack));
            float lio = Num(KindJson.Member(feet, "left"), "inOut", Foot(footInOutOffset, leftFootInOut));
            float rfb = Num(KindJson.Member(feet, "right"), "frontBack", Foot(footFrontBackOffset, rightFootFrontBack));
            float rio = Num(KindJson.Member(feet, "right"), "inOut", Foot(footInOutOffset, rightFootInOut));
            footFrontBackOffset = (lfb + rfb) / 2f;
            footInOutOffset = (lio + rio) / 2f;
            leftFootFrontBack = lfb - footFrontBackOffset;
            rightFootFrontBack = rfb - footFrontBackOffset;
            leftFootInOut = lio - footInOutOffset;
            rightFootInOut = rio - footInOutOffset;
            sent.Forget();
        }

        static float Num(object obj, string key, float fallback)
        {
            object v = KindJson.Member(obj, key);
            return v is double ? (float)(double)v : fallback;
        }

        void OnDestroy()
        {
            if (driver != null) { driver.Destroy(); driver = null; }
        }
    }
}
