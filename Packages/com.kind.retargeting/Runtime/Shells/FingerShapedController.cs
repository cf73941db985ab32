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
    /// spread for all fingers, each -1..1 (muscle values of the finger rig, src/rig/fingers.ts). The fields
    /// are compared every frame with the values last sent and only what changed is sent, so a script writing
    /// a curl at runtime takes effect on the next frame (as in the original); nothing is allocated when
    /// nothing changed.
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
        KindAvatarDriver sentTo;
        // per hand (left 0..6, right 7..13): enabled, thumb, index, middle, ring, little, spread
        readonly KindSentValues sent = new KindSentValues(14);
        bool pushedNone;

        void Awake() { hub = GetComponent<CustomRetargetingScript>(); }

        void OnEnable() { sent.Forget(); pushedNone = false; }

        void OnDisable()
        {
            // give the fingers back to the retargeting script's copy mode
            if (pushedNone && hub != null && hub.Driver != null)
                hub.Driver.SetValue("fingerCopyMode", CustomRetargetingScript.FingerName(hub.fingerCopyMode), this);
            pushedNone = false;
        }

        void Update()
        {
            if (hub == null || hub.Driver == null) return;
            var d = hub.Driver;
            if (d != sentTo) { sentTo = d; sent.Forget(); pushedNone = false; } // a new hub: send everything
            if (!pushedNone)
            {
                d.SetValue("fingerCopyMode", CustomRetargetingScript.FingerName(FingerCopyMode.None), this);
                pushedNone = true;
            }
            PushHand(d, 0, "left", leftHandEnabled, leftThumbCurl, leftIndexCurl, leftMiddleCurl, leftRingCurl, leftPinkyCurl, leftSpreadFingers);
            PushHand(d, 7, "right", rightHandEnabled, rightThumbCurl, rightIndexCurl, rightMiddleCurl, rightRingCurl, rightPinkyCurl, rightSpreadFingers);
        }

        // the property names, built once (no string concatenation per frame)
        static readonly string[] LeftNames = Names("left"), RightNames = Names("right");

        static string[] Names(string hand)
        {
            var n = new string[6 + Fingers.Length];
            n[0] = hand + "FingersEnabled";
            n[1] = hand + "ThumbCurl";
            n[2] = hand + "IndexCurl";
            n[3] = hand + "MiddleCurl";
            n[4] = hand + "RingCurl";
            n[5] = hand + "LittleCurl";
            for (int f = 0; f < Fingers.Length; f++) n[6 + f] = hand + Fingers[f] + "Spread";
            return n;
        }

        void PushHand(KindAvatarDriver d, int slot, string hand, bool on, float thumb, float index, float middle, float ring, float pinky, float spread)
        {
            string[] n = hand == "left" ? LeftNames : RightNames;
            if (sent.Changed(slot, on)) d.SetValue(n[0], on, this);
            if (sent.Changed(slot + 1, thumb)) d.SetValue(n[1], thumb, this);
            if (sent.Changed(slot + 2, index)) d.SetValue(n[2], index, this);
            if (sent.Changed(slot + 3, middle)) d.SetValue(n[3], middle, this);
            if (sent.Changed(slot + 4, ring)) d.SetValue(n[4], ring, this);
            if (sent.Changed(slot + 5, pinky)) d.SetValue(n[5], pinky, this);
            if (sent.Changed(slot + 6, spread))
                for (int f = 0; f < Fingers.Length; f++) d.SetValue(n[6 + f], spread, this);
        }

        /// <summary>
        /// Sends every value again on the next Update. Not needed after changing fields from a script (they are
        /// compared every frame); kept for code written against this package's earlier versions.
        /// </summary>
        public void MarkDirty() { sent.Forget(); pushedNone = false; }

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
