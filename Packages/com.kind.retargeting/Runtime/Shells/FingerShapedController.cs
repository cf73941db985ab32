using KindRetargeting.EnumsList;
using UnityEngine;

namespace KindRetargeting
{
    /// <summary>Hand pose presets of the finger rig (src/rig/fingersTable.ts FINGER_PRESET_NAMES).</summary>
    public enum KindHandPreset { Rock, Paper, Scissors, V, IndexPoint, Reset }

    /// <summary>
    /// Finger shaping of the hub on the same GameObject, with the original KindRetargeting's members: while
    /// this component is enabled the fingers follow its curls (the hub's fingerCopyMode None); disabled,
    /// CustomRetargetingScript.fingerCopyMode applies again. Per hand: enabled, a curl per finger and one
    /// spread for all fingers, each -1..1 (muscle values of the finger rig, src/rig/fingers.ts). Values are
    /// pushed when they change.
    /// </summary>
    [RequireComponent(typeof(CustomRetargetingScript))]
    [AddComponentMenu("Kind Retargeting/Finger Shaped Controller")]
    public class FingerShapedController : MonoBehaviour
    {
        [Header("Left hand")]
        public bool leftHandEnabled = true;
        [Range(-1f, 1f)] public float leftThumbCurl, leftIndexCurl, leftMiddleCurl, leftRingCurl, leftPinkyCurl;
        [Tooltip("Spread of all five fingers.")]
        [Range(-1f, 1f)] public float leftSpreadFingers;

        [Header("Right hand")]
        public bool rightHandEnabled = true;
        [Range(-1f, 1f)] public float rightThumbCurl, rightIndexCurl, rightMiddleCurl, rightRingCurl, rightPinkyCurl;
        [Tooltip("Spread of all five fingers.")]
        [Range(-1f, 1f)] public float rightSpreadFingers;

        static readonly string[] Fingers = { "Thumb", "Index", "Middle", "Ring", "Little" };
        CustomRetargetingScript hub;
        bool dirty = true;
        bool pushedNone;

        void OnValidate() { dirty = true; }

        void Awake() { hub = GetComponent<CustomRetargetingScript>(); }

        void OnEnable() { dirty = true; }

        void OnDisable()
        {
            // give the fingers back to the retargeting script's copy mode
            if (pushedNone && hub != null && hub.Driver != null)
                hub.Driver.SetValue("fingerCopyMode", CustomRetargetingScript.FingerName(hub.fingerCopyMode), this);
            pushedNone = false;
        }

        void Update()
        {
            if (!dirty || hub == null || hub.Driver == null) return;
            dirty = false;
            var d = hub.Driver;
            d.SetValue("fingerCopyMode", CustomRetargetingScript.FingerName(FingerCopyMode.None), this);
            pushedNone = true;
            PushHand(d, "left", leftHandEnabled, leftThumbCurl, leftIndexCurl, leftMiddleCurl, leftRingCurl, leftPinkyCurl, leftSpreadFingers);
            PushHand(d, "right", rightHandEnabled, rightThumbCurl, rightIndexCurl, rightMiddleCurl, rightRingCurl, rightPinkyCurl, rightSpreadFingers);
        }

        void PushHand(KindAvatarDriver d, string hand, bool on, float thumb, float index, float middle, float ring, float pinky, float spread)
        {
            d.SetValue(hand + "FingersEnabled", on, this);
            d.SetValue(hand + "ThumbCurl", thumb, this);
            d.SetValue(hand + "IndexCurl", index, this);
            d.SetValue(hand + "MiddleCurl", middle, this);
            d.SetValue(hand + "RingCurl", ring, this);
            d.SetValue(hand + "LittleCurl", pinky, this);
            for (int f = 0; f < Fingers.Length; f++) d.SetValue(hand + Fingers[f] + "Spread", spread, this);
        }

        /// <summary>Marks the values for sending on the next Update (after changing fields from a script).</summary>
        public void MarkDirty() { dirty = true; }

        /// <summary>Applies a preset to "left", "right" or "both" hands (the protocol's setHandPosePreset).</summary>
        public void ApplyPreset(string hand, KindHandPreset preset)
        {
            if (hub == null) hub = GetComponent<CustomRetargetingScript>();
            hub.Command("{\"action\":\"setHandPosePreset\",\"hand\":" + KindJson.Quote(hand) + ",\"preset\":" + KindJson.Quote(PresetName(preset)) + "}");
        }

        /// <summary>
        /// Applies a preset by name to "left", "right" or "both": this package's names (rock, paper, scissors,
        /// v, index-point, reset) or the original's (가위, 바위, 보, 브이, 검지, 초기화; the hub maps them).
        /// </summary>
        public void ApplyPreset(string hand, string preset)
        {
            if (hub == null) hub = GetComponent<CustomRetargetingScript>();
            hub.Command("{\"action\":\"setHandPosePreset\",\"hand\":" + KindJson.Quote(hand) + ",\"preset\":" + KindJson.Quote(preset) + "}");
        }

        /// <summary>The protocol's preset name.</summary>
        public static string PresetName(KindHandPreset p)
        {
            switch (p)
            {
                case KindHandPreset.Rock: return "rock";
                case KindHandPreset.Paper: return "paper";
                case KindHandPreset.Scissors: return "scissors";
                case KindHandPreset.V: return "v";
                case KindHandPreset.IndexPoint: return "index-point";
                default: return "reset";
            }
        }
    }
}
