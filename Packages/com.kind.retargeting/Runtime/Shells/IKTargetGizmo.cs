using System.Collections.Generic;
using UnityEngine;

namespace KindRetargeting
{
    /// <summary>
    /// Scene-view gizmos of the hub on the same GameObject (Play mode, the hub running): per limb the IK
    /// target (sphere, coloured from grey at weight 0 to green at weight 1), the line from where the end
    /// bone got to, the arms' bend goals (small cubes; legs: the knee bone, LegIK aims it from the source
    /// knee) and the weight; the hand and head attachment points (PropLocationController's Target
    /// transforms, also in Edit mode) and the seat point of attached Chair props (yellow cube). The data
    /// come from the bridge's ikState command (one call per Scene-view repaint, Editor only).
    /// </summary>
    [RequireComponent(typeof(CustomRetargetingScript))]
    [AddComponentMenu("Kind Retargeting/IK Target Gizmo")]
    public class IKTargetGizmo : MonoBehaviour
    {
        [Tooltip("Sphere radius of the IK targets, metres.")]
        [Range(0.005f, 0.2f)] public float targetSize = 0.04f;
        public bool showLimbs = true;
        public bool showAttachPoints = true;
        public bool showSeat = true;

        static readonly HumanBodyBones[] MidBones = { HumanBodyBones.LeftLowerArm, HumanBodyBones.RightLowerArm, HumanBodyBones.LeftLowerLeg, HumanBodyBones.RightLowerLeg };

        /// <summary>Weight 0 grey .. 1 green.</summary>
        public static Color WeightColor(float weight) { return Color.Lerp(Color.grey, Color.green, Mathf.Clamp01(weight)); }

        void OnDrawGizmos()
        {
            var hub = GetComponent<CustomRetargetingScript>();
            if (hub == null) return;
            if (showAttachPoints) DrawAttachPoints();
            if (!Application.isPlaying || hub.Driver == null || hub.targetAnimator == null) return;
            string reply = hub.Driver.Command("{\"action\":\"ikState\"}");
            object state;
            try { state = KindJson.Parse(reply); }
            catch (System.FormatException) { return; }
            if (!KindJson.IsOk(state)) return;
            Transform root = hub.targetAnimator.transform;
            bool local = hub.Driver.SourceInRootSpace;
            if (showLimbs)
            {
                var limbs = KindJson.Member(state, "limbs") as List<object>;
                if (limbs != null)
                    for (int l = 0; l < limbs.Count && l < 4; l++) DrawLimb(limbs[l], l, root, local, hub.targetAnimator);
            }
            if (showSeat)
            {
                var props = KindJson.Member(state, "props") as List<object>;
                if (props != null)
                    foreach (object p in props)
                    {
                        if (KindJson.Member(p, "type") as string != "Chair" || KindJson.Member(p, "attachedTo") == null) continue;
                        Gizmos.color = Color.yellow;
                        Gizmos.DrawWireCube(Point(KindJson.Member(p, "position"), root, local), new Vector3(0.3f, 0.02f, 0.3f));
                    }
            }
        }

        void DrawLimb(object limb, int l, Transform root, bool local, Animator avatar)
        {
            object w = KindJson.Member(limb, "weight");
            float weight = w is double ? (float)(double)w : 0f;
            Vector3 target = Point(KindJson.Member(limb, "target"), root, local);
            Vector3 reached = Point(KindJson.Member(limb, "reached"), root, local);
            Gizmos.color = WeightColor(weight);
            Gizmos.DrawSphere(target, targetSize * (0.5f + 0.5f * Mathf.Clamp01(weight)));
            Gizmos.DrawLine(reached, target);
            object goal = KindJson.Member(limb, "bendGoal");
            Vector3 pole;
            if (goal != null) pole = Point(goal, root, local);
            else
            {
                Transform mid = avatar.GetBoneTransform(MidBones[l]);
                if (mid == null) return;
                pole = mid.position;
            }
            Gizmos.color = Color.cyan;
            Gizmos.DrawWireCube(pole, Vector3.one * targetSize * 0.6f);
            Gizmos.DrawLine(reached, pole);
        }

        void DrawAttachPoints()
        {
            var props = GetComponent<PropLocationController>();
            if (props == null) return;
            for (int p = 0; p < 3; p++)
            {
                Transform bone = props.Bone((KindPropPoint)p);
                if (bone == null) continue;
                Transform t = bone.Find(PropLocationController.TargetNames[p]);
                Gizmos.color = Color.magenta;
                Gizmos.DrawWireSphere(t != null ? t.position : bone.position, targetSize * 0.75f);
            }
        }

        /// <summary>A [x, y, z] of ikState (metres, the target root's frame when local) in world space.</summary>
        static Vector3 Point(object xyz, Transform root, bool local)
        {
            var a = xyz as List<object>;
            if (a == null || a.Count != 3) return root.position;
            var v = new Vector3((float)(double)a[0], (float)(double)a[1], (float)(double)a[2]);
            return local ? root.position + root.rotation * v : v;
        }
    }
}
