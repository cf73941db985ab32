using KindRetargeting.EnumsList;
using UnityEngine;

namespace KindRetargeting
{
    /// <summary>
    /// Put on a prop GameObject to declare what it is: a held Object, a Chair (seated hips), or a Hand
    /// (a prop the hand holds with IK); None is attached as an Object and reported by the scene check.
    /// PropLocationController reads it when it attaches the prop.
    /// </summary>
    [DisallowMultipleComponent]
    [AddComponentMenu("Kind Retargeting/Prop Type Controller")]
    public class PropTypeController : MonoBehaviour
    {
        public PropType propType = PropType.Object;
        [Tooltip("Name the hub knows the prop by. Empty: the GameObject's name.")]
        public string propName = "";

        public string PropName { get { return string.IsNullOrEmpty(propName) ? name : propName; } }

        /// <summary>The protocol's type name (None is sent as Object).</summary>
        public string TypeName { get { return propType == PropType.Chair ? "Chair" : propType == PropType.Hand ? "Hand" : "Object"; } }
    }
}
