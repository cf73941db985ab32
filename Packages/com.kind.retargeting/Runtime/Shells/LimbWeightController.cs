using UnityEngine;

namespace KindRetargeting
{
    /// <summary>
    /// IK weights of the hub on the same GameObject, with the original KindRetargeting's members: per-arm
    /// IK enable and the weight smoothing speed, plus this package's IK mode. Compared every frame with the
    /// values last sent and pushed as the parameters leftArmIKForcedOff / rightArmIKForcedOff (negated),
    /// weightSmoothingSpeed and ikMode when they change, so a script writing enableLeftArmIK at runtime takes
    /// effect on the next frame (as in the original); nothing is allocated when nothing changed.
    /// The weights themselves (distance, chair and hand-prop rules) are computed in TypeScript (src/rig/limbWeights.ts).
    /// The original's layer arrays (seed table: arms [hand-to-hand, nearest prop], legs [seated foot
    /// distance, foot height], hips [chair, hips height]) and <see cref="HipsWeightOffset"/> are the hub's
    /// values of the last frame, read (bridge command limbWeightState) on the first access in a frame: a
    /// JSON reply, so reading them allocates, at most once per frame; not reading them costs nothing. The
    /// foot height thresholds are sent when they change (the hub's footHeight ramp: IK full below the
    /// min, off above the max).
    /// </summary>
    [RequireComponent(typeof(CustomRetargetingScript))]
    [AddComponentMenu("Kind Retargeting/Limb Weight Controller")]
    public class LimbWeightController : MonoBehaviour
    {
        public bool enableLeftArmIK = true;
        public bool enableRightArmIK = true;
        [Tooltip("How fast the IK weights follow their targets, per second (0.01..1000).")]
        [Range(0.01f, 1000f)] public float weightSmoothSpeed = 10f;
        [Tooltip("Auto: weights by the rules; On: always IK; Off: never IK.")]
        public KindIKMode ikMode = KindIKMode.Auto;

        [Header("Foot height thresholds (metres above the floor)")]
        [Tooltip("Leg IK full at or below this foot height (the hub's footHeight ramp, near).")]
        [Range(0f, 2f)] public float footHeightMinThreshold = 0.2f;
        [Tooltip("Leg IK off at or above this foot height (footHeight ramp, far; above the min).")]
        [Range(0f, 2f)] public float footHeightMaxThreshold = 0.45f;

        // the layers (the last frame's target weight of each condition, 0..1), read lazily
        float[] leftArm = new float[2], rightArm = new float[2], leftLeg = new float[2], rightLeg = new float[2], hips = new float[2];
        float hipsWeightOffset;
        int readFrame = -1;

        /// <summary>[0] hand-to-hand distance, [1] nearest prop to the left hand (the original's layer table; the hub's, read on first access in a frame).</summary>
        public float[] leftArmEndWeights { get { Refresh(); return leftArm; } }
        /// <summary>[0] hand-to-hand distance, [1] nearest prop to the right hand.</summary>
        public float[] rightArmEndWeights { get { Refresh(); return rightArm; } }
        /// <summary>[0] seated: left foot to hips horizontal distance, [1] left foot height.</summary>
        public float[] leftLegEndWeights { get { Refresh(); return leftLeg; } }
        /// <summary>[0] seated: right foot to hips horizontal distance, [1] right foot height.</summary>
        public float[] rightLegEndWeights { get { Refresh(); return rightLeg; } }
        /// <summary>[0] distance to the chair prop, [1] hips height above the floor.</summary>
        public float[] hipsWeights { get { Refresh(); return hips; } }
        /// <summary>The smoothed hips weight the hips-height correction is multiplied by (lower when seated), the hub's.</summary>
        public float HipsWeightOffset { get { Refresh(); return hipsWeightOffset; } }

        float sentMin = float.NaN, sentMax = float.NaN;

        void Refresh()
        {
            if (readFrame == Time.frameCount) return;
            readFrame = Time.frameCount;
            ReadLayers(false);
        }

        CustomRetargetingScript hub;
        KindAvatarDriver sentTo;
        // ikMode, enableLeftArmIK, enableRightArmIK, weightSmoothSpeed
        readonly KindSentValues sent = new KindSentValues(4);

        void Awake() { hub = GetComponent<CustomRetargetingScript>(); }

        void OnEnable() { sent.Forget(); }

        /// <summary>
        /// Sends every value again on the next Update. Not needed after changing fields from a script (they are
        /// compared every frame); kept for code written against this package's earlier versions.
        /// </summary>
        public void MarkDirty() { sent.Forget(); }

        void Update()
        {
            if (hub == null || hub.Driver == null) return;
            if (footHeightMinThreshold != sentMin || footHeightMaxThreshold != sentMax) ReadLayers(true);
            var d = hub.Driver;
            if (d != sentTo) { sentTo = d; sent.Forget(); } // a new hub: send everything
            if (sent.Changed(0, (int)ikMode)) d.SetValue("ikMode", CustomRetargetingScript.IkName(ikMode), this);
            if (sent.Changed(1, enableLeftArmIK)) d.SetValue("leftArmIKForcedOff", !enableLeftArmIK, this);
            if (sent.Changed(2, enableRightArmIK)) d.SetValue("rightArmIKForcedOff", !enableRightArmIK, this);
            if (sent.Changed(3, weightSmoothSpeed)) d.SetValue("weightSmoothingSpeed", weightSmoothSpeed, this);
        }

        /// <summary>limbWeightState: copies the hub's layers into the arrays (and sends the thresholds when asked).</summary>
        void ReadLayers(bool sendThresholds)
        {
            if (hub == null) hub = GetComponent<CustomRetargetingScript>();
            if (hub == null || hub.Driver == null) return;
            string json = sendThresholds
                ? "{\"action\":\"limbWeightState\",\"footHeight\":[" + KindJson.Number(footHeightMinThreshold) + "," + KindJson.Number(footHeightMaxThreshold) + "]}"
                : "{\"action\":\"limbWeightState\"}";
            string reply = hub.Driver.CommandLogged(json, this);
            if (sendThresholds) { sentMin = footHeightMinThreshold; sentMax = footHeightMaxThreshold; }
            if (reply == null) return;
            object o;
            try { o = KindJson.Parse(reply); }
            catch (System.FormatException) { return; }
            if (!KindJson.IsOk(o)) return;
            Copy(o, "leftArmEndWeights", ref leftArm);
            Copy(o, "rightArmEndWeights", ref rightArm);
            Copy(o, "leftLegEndWeights", ref leftLeg);
            Copy(o, "rightLegEndWeights", ref rightLeg);
            Copy(o, "hipsWeights", ref hips);
            object h = KindJson.Member(o, "hipsWeightOffset");
            if (h is double) hipsWeightOffset = (float)(double)h;
        }

        static void Copy(object reply, string key, ref float[] into)
        {
            var list = KindJson.Member(reply, key) as System.Collections.Generic.List<object>;
            if (list == null) return;
            if (into == null || into.Length != list.Count) into = new float[list.Count];
            for (int i = 0; i < list.Count; i++) if (list[i] is double) into[i] = (float)(double)list[i];
        }
    }
}
