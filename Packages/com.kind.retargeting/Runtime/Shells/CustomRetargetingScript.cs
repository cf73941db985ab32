// The main shell: one avatar retargeted from one source by a TypeScript hub. Inspector fields are pushed
// to the hub through command(handle, {"action":"updateValueRealtime",...}) when they change; the buttons
// send calibrateIPose / resetCalibration / calibrateHeadForward; save/load use exportSettings /
// applySettings and write the file atomically (temp file, then rename).
using System;
using System.IO;
using System.Text;
using UnityEngine;

namespace Kind.Retargeting
{
    /// <summary>IK mode of the hub (setup option "ik" and parameter ikMode).</summary>
    public enum KindIKMode { Auto, On, Off }
    /// <summary>Hips placement (setup option "hipsMode").</summary>
    public enum KindHipsMode { Room, Scaled }
    /// <summary>Finger copy mode (setup option "fingers" and parameter fingerCopyMode).</summary>
    public enum KindFingerMode { Rotation, None, MuscleData }

    /// <summary>
    /// Retargets <see cref="source"/> onto <see cref="targetAnimator"/>. Update: one update() call, body
    /// rotations and hips position applied (body and IK); LateUpdate: head rotation, avatar scale (hips) and
    /// head scale applied (README "Execution order").
    /// </summary>
    [DefaultExecutionOrder(0)]
    [DisallowMultipleComponent]
    [AddComponentMenu("Kind Retargeting/Custom Retargeting Script")]
    public sealed class CustomRetargetingScript : MonoBehaviour
    {
        [Header("Character")]
        [Tooltip("Hub name; the remote protocol's characterName. Empty: this GameObject's name.")]
        public string characterName = "";
        [Tooltip("The driving skeleton (Animator source, OptiTrack source, ...).")]
        public KindPoseSource source;
        [Tooltip("The avatar to drive (humanoid Animator without a playing controller).")]
        public Animator targetAnimator;

        [Header("Feet (metres, in the foot's axes)")]
        [Range(-0.5f, 0.5f)] public float leftFootFrontBack;
        [Range(-0.5f, 0.5f)] public float leftFootInOut;
        [Range(-0.5f, 0.5f)] public float rightFootFrontBack;
        [Range(-0.5f, 0.5f)] public float rightFootInOut;

        [Header("Floor and seat (metres)")]
        [Range(-10f, 10f)] public float floorHeight;
        [Range(-1f, 1f)] public float chairSeatOffset;

        [Header("Head")]
        [Tooltip("Degrees about the head's reference axes (as Quaternion.Euler), each -180..180.")]
        public Vector3 headRotationOffset;

        [Header("Scale")]
        [Range(0.1f, 3f)] public float avatarScale = 1f;
        [Range(0.1f, 3f)] public float headScale = 1f;

        [Header("Setup (applied when the hub is created)")]
        public KindIKMode ikMode = KindIKMode.Auto;
        public KindHipsMode hipsMode = KindHipsMode.Room;
        public KindFingerMode fingerMode = KindFingerMode.Rotation;
        [Tooltip("Send the source relative to its root, so this avatar stands at its own root as the source stands at its root (place avatars side by side). Off: world pose; keep this avatar's root at the origin.")]
        public bool followTargetRoot = true;

        [Header("Settings file")]
        [Tooltip("Settings JSON (src/rig/settings.ts format). Empty: <persistentDataPath>/KindRetargeting/<name>.json.")]
        public string settingsPath = "";
        public bool loadSettingsOnStart = true;

        KindAvatarDriver driver;
        bool poseThisFrame;
        bool dirty = true;
        readonly double[] sent = new double[11];

        /// <summary>The hub's name.</summary>
        public string CharacterName { get { return string.IsNullOrEmpty(characterName) ? name : characterName; } }
        /// <summary>The driver (null until Start succeeded).</summary>
        public KindAvatarDriver Driver { get { return driver; } }
        /// <summary>The settings file used by save/load.</summary>
        public string SettingsFile
        {
            get
            {
                if (!string.IsNullOrEmpty(settingsPath)) return settingsPath;
                return Path.Combine(Path.Combine(Application.persistentDataPath, "KindRetargeting"), CharacterName + ".json");
            }
        }

        void Start()
        {
            if (source == null || targetAnimator == null)
            {
                Debug.LogError("KindRetargeting '" + CharacterName + "': source and target Animator must be set", this);
                enabled = false;
                return;
            }
            for (int i = 0; i < sent.Length; i++) sent[i] = double.NaN;
            TryCreate();
        }

        void TryCreate()
        {
            if (driver != null || !source.IsReady) return;
            try
            {
                string options = "{\"ik\":\"" + IkName(ikMode) + "\",\"hipsMode\":\"" + (hipsMode == KindHipsMode.Room ? "room" : "scaled") + "\",\"fingers\":\"" + FingerName(fingerMode) + "\"}";
                driver = new KindAvatarDriver(KindRuntime.Get(), CharacterName, source, targetAnimator, options, this);
                driver.SourceInRootSpace = followTargetRoot;
            }
            catch (Exception e)
            {
                Debug.LogError("KindRetargeting '" + CharacterName + "': could not create the hub: " + e.Message, this);
                enabled = false;
                return;
            }
            if (loadSettingsOnStart && File.Exists(SettingsFile)) LoadSettings(SettingsFile);
            dirty = true;
        }

        internal static string IkName(KindIKMode m) { return m == KindIKMode.On ? "on" : m == KindIKMode.Off ? "off" : "auto"; }
        internal static string FingerName(KindFingerMode m) { return m == KindFingerMode.None ? "none" : m == KindFingerMode.MuscleData ? "muscleData" : "rotation"; }

        void OnValidate() { dirty = true; }

        void Update()
        {
            poseThisFrame = false;
            if (driver == null) { TryCreate(); if (driver == null) return; }
            if (dirty) PushInspectorValues();
            poseThisFrame = driver.Step(Time.deltaTime);
            if (poseThisFrame) driver.ApplyBody();
        }

        void LateUpdate()
        {
            if (driver != null && poseThisFrame) driver.ApplyHead();
        }

        void PushInspectorValues()
        {
            dirty = false;
            Push(0, "avatarScale", avatarScale);
            Push(1, "headScale", headScale);
            Push(2, "headRotationOffsetX", headRotationOffset.x);
            Push(3, "headRotationOffsetY", headRotationOffset.y);
            Push(4, "headRotationOffsetZ", headRotationOffset.z);
            Push(5, "floorHeight", floorHeight);
            Push(6, "leftFootFrontBack", leftFootFrontBack);
            Push(7, "leftFootInOut", leftFootInOut);
            Push(8, "rightFootFrontBack", rightFootFrontBack);
            Push(9, "rightFootInOut", rightFootInOut);
            Push(10, "chairSeatOffset", chairSeatOffset);
        }

        void Push(int slot, string property, float value)
        {
            if (sent[slot] == value) return;
            sent[slot] = value;
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

        [ContextMenu("Calibrate I-pose")]
        public void CalibrateIPose() { Command("{\"action\":\"calibrateIPose\"}"); }

        [ContextMenu("Reset calibration")]
        public void ResetCalibration() { Command("{\"action\":\"resetCalibration\"}"); }

        [ContextMenu("Calibrate head forward")]
        public void CalibrateHeadForward() { Command("{\"action\":\"calibrateHeadForward\"}"); }

        [ContextMenu("Auto calibrate all")]
        public void AutoCalibrateAll() { Command("{\"action\":\"autoCalibrateAll\"}"); }

        [ContextMenu("Save settings")]
        public void SaveSettingsMenu() { SaveSettings(SettingsFile); }

        [ContextMenu("Load settings")]
        public void LoadSettingsMenu() { LoadSettings(SettingsFile); }

        /// <summary>
        /// Writes the hub's settings (exportSettings) to <paramref name="path"/>: to "&lt;path&gt;.tmp" first, then
        /// renamed over the old file, so a failure never leaves a half-written settings file.
        /// </summary>
        public bool SaveSettings(string path)
        {
            string reply = Command("{\"action\":\"exportSettings\"}");
            if (reply == null) return false;
            string settings = KindJson.RawMember(reply, "settings");
            if (settings == null) { Debug.LogError("KindRetargeting '" + CharacterName + "': exportSettings reply has no settings: " + reply, this); return false; }
            try
            {
                KindFiles.WriteAtomically(path, settings);
                Debug.Log("KindRetargeting '" + CharacterName + "': settings saved to " + path, this);
                return true;
            }
            catch (Exception e)
            {
                Debug.LogError("KindRetargeting '" + CharacterName + "': could not save settings to " + path + ": " + e.Message, this);
                return false;
            }
        }

        /// <summary>Reads a settings file and sends applySettings; on an error the hub keeps its settings (the reply names the field).</summary>
        public bool LoadSettings(string path)
        {
            string text;
            try { text = File.ReadAllText(path, Encoding.UTF8); }
            catch (Exception e) { Debug.LogError("KindRetargeting '" + CharacterName + "': could not read " + path + ": " + e.Message, this); return false; }
            try { KindJson.Parse(text); }
            catch (FormatException e) { Debug.LogError("KindRetargeting '" + CharacterName + "': " + path + ": " + e.Message, this); return false; }
            string reply = Command("{\"action\":\"applySettings\",\"settings\":" + text + "}");
            if (reply == null || !KindJson.IsOk(KindJson.Parse(reply))) return false;
            PullSettings(text);
            return true;
        }

        /// <summary>Copies scalar settings from a settings JSON into the inspector fields (so a later inspector edit does not undo a load).</summary>
        void PullSettings(string settingsJson)
        {
            object s = KindJson.Parse(settingsJson);
            avatarScale = Num(s, "avatarScale", avatarScale);
            headScale = Num(s, "headScale", headScale);
            floorHeight = Num(s, "floorHeight", floorHeight);
            chairSeatOffset = Num(s, "chairSeatOffset", chairSeatOffset);
            var head = KindJson.Member(s, "headRotationOffset") as System.Collections.Generic.List<object>;
            if (head != null && head.Count == 3) headRotationOffset = new Vector3((float)(double)head[0], (float)(double)head[1], (float)(double)head[2]);
            object feet = KindJson.Member(s, "footOffsets");
            leftFootFrontBack = Num(KindJson.Member(feet, "left"), "frontBack", leftFootFrontBack);
            leftFootInOut = Num(KindJson.Member(feet, "left"), "inOut", leftFootInOut);
            rightFootFrontBack = Num(KindJson.Member(feet, "right"), "frontBack", rightFootFrontBack);
            rightFootInOut = Num(KindJson.Member(feet, "right"), "inOut", rightFootInOut);
            for (int i = 0; i < sent.Length; i++) sent[i] = double.NaN;
            dirty = true;
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

    /// <summary>File helpers for the shells.</summary>
    public static class KindFiles
    {
        /// <summary>Writes UTF-8 text to "&lt;path&gt;.tmp" and renames it over <paramref name="path"/> (File.Replace when it exists).</summary>
        public static void WriteAtomically(string path, string text)
        {
            string dir = Path.GetDirectoryName(Path.GetFullPath(path));
            if (!string.IsNullOrEmpty(dir)) Directory.CreateDirectory(dir);
            string tmp = path + ".tmp";
            File.WriteAllText(tmp, text, new UTF8Encoding(false));
            try
            {
                if (File.Exists(path)) File.Replace(tmp, path, null);
                else File.Move(tmp, path);
            }
            catch
            {
                if (File.Exists(tmp)) File.Delete(tmp);
                throw;
            }
        }
    }
}
