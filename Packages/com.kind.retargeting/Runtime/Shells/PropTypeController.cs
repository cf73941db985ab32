using UnityEngine;

namespace Kind.Retargeting
{
    /// <summary>Prop kinds of the prop system (src/rig/props.ts PROP_TYPE_NAMES, without None).</summary>
    public enum KindPropType { Object, Chair, Hand }

    /// <summary>
    /// Put on a prop GameObject to declare what it is: a held Object, a Chair (seated hips), or a Hand
    /// (a prop the hand holds with IK). PropLocationController reads it when it attaches the prop.
    /// </summary>
    [DisallowMultipleComponent]
    [AddComponentMenu("Kind Retargeting/Prop Type Controller")]
    public sealed class PropTypeController : MonoBehaviour
    {
        public KindPropType propType = KindPropType.Object;
        [Tooltip("Name the hub knows the prop by. Empty: the GameObject's name.")]
        public string propName = "";

        public string PropName { get { return string.IsNullOrEmpty(propName) ? name : propName; } }

        /// <summary>The protocol's type name.</summary>
        public string TypeName { get { return propType == KindPropType.Chair ? "Chair" : propType == KindPropType.Hand ? "Hand" : "Object"; } }
    }
}
