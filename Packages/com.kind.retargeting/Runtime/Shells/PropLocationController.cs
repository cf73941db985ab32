using System;
using System.Collections.Generic;
using UnityEngine;

namespace KindRetargeting
{
    /// <summary>Attach points of the prop system (src/rig/props.ts PROP_POINT_NAMES).</summary>
    public enum KindPropPoint { LeftHand, RightHand, Head }

    /// <summary>
    /// Attaches props to the avatar of the hub on the same GameObject, through the original KindRetargeting's
    /// Target/Offset hierarchy: under each attach bone a "&lt;Point&gt;_Target" transform at the bone plus a
    /// position offset, rotated (hands: Euler(90, 0, 0) from the bone, head: none; both fields below), with a
    /// "&lt;Point&gt;_Offset" child the user moves to fit the grip:
    /// <code>
    /// LeftHand bone
    ///   Left_Hand_Target   (localPosition leftHandPositionOffset, localRotation Euler(leftHandRotation))
    ///     Left_Hand_Offset (props are parented here, at its origin)
    /// </code>
    /// MoveToLeftHand(prop) parents the prop to Left_Hand_Offset at its origin and tells the hub
    /// (attachProp, the type from the prop's PropTypeController, else Object) so its rules (hand IK on held
    /// props, seated hips on a Chair) apply; DetachProp unparents it (world pose kept) and tells the hub.
    /// Props already under an Offset when Play starts are registered with the hub then.
    /// </summary>
    [RequireComponent(typeof(CustomRetargetingScript))]
    [AddComponentMenu("Kind Retargeting/Prop Location Controller")]
    public class PropLocationController : MonoBehaviour
    {
        [Serializable]
        public sealed class Attachment
        {
            public Transform prop;
            public KindPropPoint point = KindPropPoint.RightHand;
        }

        [Header("Target/Offset hierarchy (metres and degrees in the bone's frame)")]
        [Tooltip("Default: the original's (-0.039, -0.022, 0).")]
        public Vector3 leftHandPositionOffset = new Vector3(-0.039f, -0.022f, 0f);
        public Vector3 leftHandRotation = new Vector3(90f, 0f, 0f);
        [Tooltip("Default: the original's (0.039, -0.022, 0).")]
        public Vector3 rightHandPositionOffset = new Vector3(0.039f, -0.022f, 0f);
        public Vector3 rightHandRotation = new Vector3(90f, 0f, 0f);
        [Tooltip("Default: the original's (0, 0.16, 0).")]
        public Vector3 headPositionOffset = new Vector3(0f, 0.16f, 0f);
        public Vector3 headRotation;

        [Tooltip("Props attached when the hub starts.")]
        public List<Attachment> attachOnStart = new List<Attachment>();

        /// <summary>Names of the hierarchy's transforms, per point (the original's).</summary>
        public static readonly string[] TargetNames = { "Left_Hand_Target", "Right_Hand_Target", "Head_Target" };
        public static readonly string[] OffsetNames = { "Left_Hand_Offset", "Right_Hand_Offset", "Head_Offset" };

        CustomRetargetingScript hub;
        readonly Transform[] targets = new Transform[3];
        readonly Transform[] offsets = new Transform[3];
        readonly List<Attachment> attached = new List<Attachment>();
        bool started;

        CustomRetargetingScript Hub { get { if (hub == null) hub = GetComponent<CustomRetargetingScript>(); return hub; } }

        void Update()
        {
            if (started || Hub.Driver == null) return;
            started = true;
            for (int p = 0; p < 3; p++)
            {
                Transform off = Offset((KindPropPoint)p);
                if (off == null) continue;
                for (int c = 0; c < off.childCount; c++) Register(off.GetChild(c), (KindPropPoint)p);
            }
            foreach (var a in attachOnStart) if (a.prop != null) Attach(a.prop, a.point);
        }

        // ---- the original API ----------------------------------------------------------------------

        /// <summary>Parents the prop to Left_Hand_Offset at its origin and tells the hub (logged on failure; <see cref="Attach"/> returns the outcome).</summary>
        public void MoveToLeftHand(GameObject prop) { if (prop != null) Attach(prop.transform, KindPropPoint.LeftHand); }
        public void MoveToRightHand(GameObject prop) { if (prop != null) Attach(prop.transform, KindPropPoint.RightHand); }
        public void MoveToHead(GameObject prop) { if (prop != null) Attach(prop.transform, KindPropPoint.Head); }
        /// <summary>Unparents the prop to the scene root (world pose kept) and tells the hub.</summary>
        public void DetachProp(GameObject prop) { if (prop != null) Detach(prop.transform, null); }

        /// <summary>Left_Hand_Offset (created on first use; null when the avatar has no left hand bone).</summary>
        public Transform GetLeftHandOffset() { return Offset(KindPropPoint.LeftHand); }
        public Transform GetRightHandOffset() { return Offset(KindPropPoint.RightHand); }
        public Transform GetHeadOffset() { return Offset(KindPropPoint.Head); }

        /// <summary>The props under Left_Hand_Offset now (a new array per call, as the original's).</summary>
        public GameObject[] GetLeftHandProps() { return Props(KindPropPoint.LeftHand).ToArray(); }
        public GameObject[] GetRightHandProps() { return Props(KindPropPoint.RightHand).ToArray(); }
        public GameObject[] GetHeadProps() { return Props(KindPropPoint.Head).ToArray(); }

#if UNITY_EDITOR
        /// <summary>Editor: the selected GameObject (UnityEditor.Selection.activeGameObject).</summary>
        public void MoveToLeftHand() { MoveToLeftHand(UnityEditor.Selection.activeGameObject); }
        public void MoveToRightHand() { MoveToRightHand(UnityEditor.Selection.activeGameObject); }
        public void MoveToHead() { MoveToHead(UnityEditor.Selection.activeGameObject); }
        public void DetachProp() { DetachProp(UnityEditor.Selection.activeGameObject); }
#endif

        // ---- this package's extras -----------------------------------------------------------------

        /// <summary>The props attached through this component now.</summary>
        public IList<Attachment> Attached { get { return attached.AsReadOnly(); } }

        /// <summary>The &lt;Point&gt;_Target transform (created on first use), or null without the bone.</summary>
        public Transform Target(KindPropPoint point) { Ensure(point); return targets[(int)point]; }

        /// <summary>The &lt;Point&gt;_Offset transform (created on first use), or null without the bone.</summary>
        public Transform Offset(KindPropPoint point) { Ensure(point); return offsets[(int)point]; }

        /// <summary>The attach bone of a point on the target avatar, or null.</summary>
        public Transform Bone(KindPropPoint point)
        {
            Animator a = Hub.targetAnimator;
            if (a == null) return null;
            return a.GetBoneTransform(point == KindPropPoint.LeftHand ? HumanBodyBones.LeftHand : point == KindPropPoint.RightHand ? HumanBodyBones.RightHand : HumanBodyBones.Head);
        }

        void Ensure(KindPropPoint point)
        {
            int i = (int)point;
            if (targets[i] != null && offsets[i] != null) return;
            Transform bone = Bone(point);
            if (bone == null) return;
            Transform t = bone.Find(TargetNames[i]);
            if (t == null)
            {
                t = new GameObject(TargetNames[i]).transform;
                t.SetParent(bone, false);
            }
            Vector3 pos = point == KindPropPoint.LeftHand ? leftHandPositionOffset : point == KindPropPoint.RightHand ? rightHandPositionOffset : headPositionOffset;
            Vector3 rot = point == KindPropPoint.LeftHand ? leftHandRotation : point == KindPropPoint.RightHand ? rightHandRotation : headRotation;
            t.localPosition = pos;
            t.localRotation = Quaternion.Euler(rot.x, rot.y, rot.z);
            Transform o = t.Find(OffsetNames[i]);
            if (o == null)
            {
                o = new GameObject(OffsetNames[i]).transform;
                o.SetParent(t, false);
            }
            targets[i] = t;
            offsets[i] = o;
        }

        List<GameObject> Props(KindPropPoint point)
        {
            var list = new List<GameObject>();
            Transform o = Offset(point);
            if (o == null) return list;
            for (int c = 0; c < o.childCount; c++) list.Add(o.GetChild(c).gameObject);
            return list;
        }

        /// <summary>
        /// Parents <paramref name="prop"/> to the point's Offset transform, at its origin, and tells the hub
        /// (when it runs; in Edit mode only the hierarchy changes). Returns false (logged) on failure.
        /// </summary>
        public bool Attach(Transform prop, KindPropPoint point)
        {
            if (prop == null) return false;
            Transform o = Offset(point);
            if (o == null) { Debug.LogError("KindRetargeting: the avatar has no " + point + " bone for prop '" + prop.name + "'", this); return false; }
            int was = attached.FindIndex(a => a.prop == prop);
            if (was >= 0) attached.RemoveAt(was);
            if (Hub.Driver != null && !Register(prop, point)) return false;
            prop.SetParent(o, false);
            prop.localPosition = Vector3.zero;
            prop.localRotation = Quaternion.identity;
            return true;
        }

        bool Register(Transform prop, KindPropPoint point)
        {
            if (Hub.Driver == null) return false;
            var type = prop.GetComponent<PropTypeController>();
            string propName = type != null ? type.PropName : prop.name;
            string typeName = type != null ? type.TypeName : "Object";
            string pointName = point == KindPropPoint.LeftHand ? "leftHand" : point == KindPropPoint.RightHand ? "rightHand" : "head";
            string reply = Hub.Command("{\"action\":\"attachProp\",\"point\":\"" + pointName + "\",\"name\":" + KindJson.Quote(propName) + ",\"type\":\"" + typeName + "\"}");
            if (reply == null || !KindJson.IsOk(KindJson.Parse(reply))) return false;
            attached.Add(new Attachment { prop = prop, point = point });
            return true;
        }

        /// <summary>Unparents the prop (to <paramref name="newParent"/>, world pose kept) and tells the hub.</summary>
        public bool Detach(Transform prop, Transform newParent)
        {
            if (prop == null) return false;
            int i = attached.FindIndex(a => a.prop == prop);
            bool underOffset = false;
            for (int p = 0; p < 3; p++) if (offsets[p] != null && prop.parent == offsets[p]) underOffset = true;
            if (i < 0 && !underOffset) return false;
            var type = prop.GetComponent<PropTypeController>();
            if (i >= 0 && Hub.Driver != null) Hub.Command("{\"action\":\"detachProp\",\"name\":" + KindJson.Quote(type != null ? type.PropName : prop.name) + "}");
            prop.SetParent(newParent, true);
            if (i >= 0) attached.RemoveAt(i);
            return true;
        }
    }
}
