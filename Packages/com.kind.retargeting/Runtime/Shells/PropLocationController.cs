using System;
using System.Collections.Generic;
using UnityEngine;

namespace Kind.Retargeting
{
    /// <summary>Attach points of the prop system (src/rig/props.ts PROP_POINT_NAMES).</summary>
    public enum KindPropPoint { LeftHand, RightHand, Head }

    /// <summary>
    /// Attaches props to the avatar of the hub on the same GameObject. Unity's hierarchy carries the prop
    /// (it is parented to the hand or head bone, keeping its world pose); the hub is told with attachProp /
    /// detachProp (type from the prop's PropTypeController, else Object) so its rules (hand IK on held
    /// props, seated hips on a chair) apply. The same props are re-attached after a settings load.
    /// </summary>
    [RequireComponent(typeof(CustomRetargetingScript))]
    [AddComponentMenu("Kind Retargeting/Prop Location Controller")]
    public sealed class PropLocationController : MonoBehaviour
    {
        [Serializable]
        public sealed class Attachment
        {
            public Transform prop;
            public KindPropPoint point = KindPropPoint.RightHand;
        }

        [Tooltip("Props attached when the hub starts.")]
        public List<Attachment> attachOnStart = new List<Attachment>();

        CustomRetargetingScript hub;
        readonly List<Attachment> attached = new List<Attachment>();
        bool started;

        void Awake() { hub = GetComponent<CustomRetargetingScript>(); }

        void Update()
        {
            if (started || hub.Driver == null) return;
            started = true;
            foreach (var a in attachOnStart) if (a.prop != null) Attach(a.prop, a.point);
        }

        /// <summary>The props attached now.</summary>
        public IList<Attachment> Attached { get { return attached.AsReadOnly(); } }

        /// <summary>Parents <paramref name="prop"/> to the attach point's bone and tells the hub. Returns false (logged) on failure.</summary>
        public bool Attach(Transform prop, KindPropPoint point)
        {
            if (hub.Driver == null || prop == null) return false;
            Transform bone = hub.targetAnimator.GetBoneTransform(point == KindPropPoint.LeftHand ? HumanBodyBones.LeftHand : point == KindPropPoint.RightHand ? HumanBodyBones.RightHand : HumanBodyBones.Head);
            if (bone == null) { Debug.LogError("KindRetargeting: the avatar has no " + point + " bone for prop '" + prop.name + "'", this); return false; }
            var type = prop.GetComponent<PropTypeController>();
            string propName = type != null ? type.PropName : prop.name;
            string typeName = type != null ? type.TypeName : "Object";
            string pointName = point == KindPropPoint.LeftHand ? "leftHand" : point == KindPropPoint.RightHand ? "rightHand" : "head";
            string reply = hub.Command("{\"action\":\"attachProp\",\"point\":\"" + pointName + "\",\"name\":" + KindJson.Quote(propName) + ",\"type\":\"" + typeName + "\"}");
            if (reply == null || !KindJson.IsOk(KindJson.Parse(reply))) return false;
            prop.SetParent(bone, true);
            attached.Add(new Attachment { prop = prop, point = point });
            return true;
        }

        /// <summary>Unparents the prop (to <paramref name="newParent"/>, world pose kept) and tells the hub.</summary>
        public bool Detach(Transform prop, Transform newParent)
        {
            int i = attached.FindIndex(a => a.prop == prop);
            if (i < 0) return false;
            var type = prop.GetComponent<PropTypeController>();
            hub.Command("{\"action\":\"detachProp\",\"name\":" + KindJson.Quote(type != null ? type.PropName : prop.name) + "}");
            prop.SetParent(newParent, true);
            attached.RemoveAt(i);
            return true;
        }
    }
}
