using System;
using UnityEngine;

namespace Kind.Retargeting
{
    /// <summary>Curl and spread per finger of one hand (-1..1), the remote parameters &lt;hand&gt;&lt;Finger&gt;Curl / Spread.</summary>
    [Serializable]
    public sealed class KindHandShape
    {
        public bool enabled = true;
        [Range(-1f, 1f)] public float thumbCurl, indexCurl, middleCurl, ringCurl, littleCurl;
        [Range(-1f, 1f)] public float thumbSpread, indexSpread, middleSpread, ringSpread, littleSpread;

        internal float Curl(int f) { switch (f) { case 0: return thumbCurl; case 1: return indexCurl; case 2: return middleCurl; case 3: return ringCurl; default: return littleCurl; } }
        internal float Spread(int f) { switch (f) { case 0: return thumbSpread; case 1: return indexSpread; case 2: return middleSpread; case 3: return ringSpread; default: return littleSpread; } }
    }

    /// <summary>Hand pose presets of the finger rig (src/rig/fingersTable.ts FINGER_PRESET_NAMES).</summary>
    public enum KindHandPreset { Rock, Paper, Scissors, V, IndexPoint, Reset }

    /// <summary>
    /// Finger shaping of the hub on the same GameObject: copy mode, per-hand enable, curl/spread per finger,
    /// presets (setHandPosePreset). Values are pushed when they change in the inspector; the finger rig
    /// (muscles, limits) is TypeScript (src/rig/fingers.ts).
    /// </summary>
    [RequireComponent(typeof(CustomRetargetingScript))]
    [AddComponentMenu("Kind Retargeting/Finger Shaped Controller")]
    public sealed class FingerShapedController : MonoBehaviour
    {
        [Tooltip("None: fingers from the values below; MuscleData: from muscle values; Rotation: copied from the source.")]
        public KindFingerMode copyMode = KindFingerMode.Rotation;
        public KindHandShape leftHand = new KindHandShape();
        public KindHandShape rightHand = new KindHandShape();

        static readonly string[] Fingers = { "Thumb", "Index", "Middle", "Ring", "Little" };
        CustomRetargetingScript hub;
        bool dirty = true;

        void OnValidate() { dirty = true; }

        void Awake() { hub = GetComponent<CustomRetargetingScript>(); }

        void Update()
        {
            if (!dirty || hub == null || hub.Driver == null) return;
            dirty = false;
            var d = hub.Driver;
            d.SetValue("fingerCopyMode", CustomRetargetingScript.FingerName(copyMode), this);
            PushHand(d, "left", leftHand);
            PushHand(d, "right", rightHand);
        }

        void PushHand(KindAvatarDriver d, string hand, KindHandShape s)
        {
            d.SetValue(hand + "FingersEnabled", s.enabled, this);
            if (copyMode == KindFingerMode.Rotation) return; // copied from the source: the curls do not apply
            for (int f = 0; f < Fingers.Length; f++)
            {
                d.SetValue(hand + Fingers[f] + "Curl", s.Curl(f), this);
                d.SetValue(hand + Fingers[f] + "Spread", s.Spread(f), this);
            }
        }

        /// <summary>Applies a preset to "left", "right" or "both" hands (the protocol's setHandPosePreset).</summary>
        public void ApplyPreset(string hand, KindHandPreset preset)
        {
            if (hub == null) hub = GetComponent<CustomRetargetingScript>();
            hub.Command("{\"action\":\"setHandPosePreset\",\"hand\":" + KindJson.Quote(hand) + ",\"preset\":" + KindJson.Quote(PresetName(preset)) + "}");
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
