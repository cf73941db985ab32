using UnityEngine;

namespace Kind.Retargeting
{
    /// <summary>
    /// IK weights of the hub on the same GameObject: IK mode, arms forced off, weight smoothing. Pushed as
    /// parameters ikMode, leftArmIKForcedOff, rightArmIKForcedOff, weightSmoothingSpeed when they change.
    /// The weights themselves (distance, chair and hand-prop rules) are computed in TypeScript (src/rig/limbWeights.ts).
    /// </summary>
    [RequireComponent(typeof(CustomRetargetingScript))]
    [AddComponentMenu("Kind Retargeting/Limb Weight Controller")]
    public sealed class LimbWeightController : MonoBehaviour
    {
        public KindIKMode ikMode = KindIKMode.Auto;
        public bool leftArmIKForcedOff;
        public bool rightArmIKForcedOff;
        [Tooltip("How fast the IK weights follow their targets, per second (0.01..1000).")]
        [Range(0.01f, 1000f)] public float weightSmoothingSpeed = 10f;

        CustomRetargetingScript hub;
        bool dirty = true;

        void OnValidate() { dirty = true; }

        void Awake() { hub = GetComponent<CustomRetargetingScript>(); }

        void Update()
        {
            if (!dirty || hub == null || hub.Driver == null) return;
            dirty = false;
            var d = hub.Driver;
            d.SetValue("ikMode", CustomRetargetingScript.IkName(ikMode), this);
            d.SetValue("leftArmIKForcedOff", leftArmIKForcedOff, this);
            d.SetValue("rightArmIKForcedOff", rightArmIKForcedOff, this);
            d.SetValue("weightSmoothingSpeed", weightSmoothingSpeed, this);
        }
    }
}
