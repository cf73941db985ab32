using UnityEngine;

namespace KindRetargeting
{
    /// <summary>
    /// IK weights of the hub on the same GameObject, with the original KindRetargeting's members: per-arm
    /// IK enable and the weight smoothing speed, plus this package's IK mode. Pushed as the parameters
    /// leftArmIKForcedOff / rightArmIKForcedOff (negated), weightSmoothingSpeed and ikMode when they change.
    /// The weights themselves (distance, chair and hand-prop rules) are computed in TypeScript (src/rig/limbWeights.ts).
    /// </summary>
    [RequireComponent(typeof(CustomRetargetingScript))]
    [AddComponentMenu("Kind Retargeting/Limb Weight Controller")]
    public sealed class LimbWeightController : MonoBehaviour
    {
        public bool enableLeftArmIK = true;
        public bool enableRightArmIK = true;
        [Tooltip("How fast the IK weights follow their targets, per second (0.01..1000).")]
        [Range(0.01f, 1000f)] public float weightSmoothSpeed = 10f;
        [Tooltip("Auto: weights by the rules; On: always IK; Off: never IK.")]
        public KindIKMode ikMode = KindIKMode.Auto;

        CustomRetargetingScript hub;
        bool dirty = true;

        void OnValidate() { dirty = true; }

        void Awake() { hub = GetComponent<CustomRetargetingScript>(); }

        /// <summary>Marks the values for sending on the next Update (after changing fields from a script).</summary>
        public void MarkDirty() { dirty = true; }

        void Update()
        {
            if (!dirty || hub == null || hub.Driver == null) return;
            dirty = false;
            var d = hub.Driver;
            d.SetValue("ikMode", CustomRetargetingScript.IkName(ikMode), this);
            d.SetValue("leftArmIKForcedOff", !enableLeftArmIK, this);
            d.SetValue("rightArmIKForcedOff", !enableRightArmIK, this);
            d.SetValue("weightSmoothingSpeed", weightSmoothSpeed, this);
        }
    }
}
