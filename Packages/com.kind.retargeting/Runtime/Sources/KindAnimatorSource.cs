using System.Collections.Generic;
using UnityEngine;

namespace KindRetargeting
{
    /// <summary>
    /// Any humanoid Animator as the source: its transform hierarchy (below the Animator's GameObject) and
    /// the Avatar's bone map (Animator.GetBoneTransform, ScriptReference/Animator.GetBoneTransform.html).
    /// Note: a playing Animator writes its pose after Update; a hub reading in Update sees the pose of the
    /// previous frame (one frame of latency; README "Execution order").
    /// </summary>
    [AddComponentMenu("Kind Retargeting/Source: Animator")]
    public class KindAnimatorSource : KindPoseSource
    {
        [Tooltip("The humanoid Animator whose pose drives the hubs. Empty: the Animator on this GameObject.")]
        public Animator animator;

        List<Transform> bones;
        int[] humanoid;

        public override bool IsReady { get { Build(); return bones != null; } }
        public override IList<Transform> Bones { get { Build(); return bones; } }
        public override int[] Humanoid { get { Build(); return humanoid; } }

        void Awake() { Build(); }

        void Build()
        {
            if (bones != null) return;
            if (animator == null) animator = GetComponent<Animator>();
            if (animator == null || !animator.isHuman) return;
            bones = KindSkeleton.CollectBelow(animator.transform);
            humanoid = KindSkeleton.HumanoidMap(animator, bones);
        }
    }
}

namespace KindRetargeting
{
    /// <summary>A humanoid Animator seen as a pose source without a component (SimplePoseTransfer's driving avatar).</summary>
    public sealed class KindAnimatorPose : IKindPoseSource
    {
        readonly Animator animator;
        readonly List<Transform> bones;
        readonly int[] humanoid;

        public KindAnimatorPose(Animator animator)
        {
            if (animator == null) throw new System.ArgumentNullException("animator");
            if (!animator.isHuman) throw new System.ArgumentException("Animator '" + animator.name + "' is not humanoid (its Avatar must be Humanoid)");
            this.animator = animator;
            bones = KindSkeleton.CollectBelow(animator.transform);
            humanoid = KindSkeleton.HumanoidMap(animator, bones);
        }

        public bool IsReady { get { return true; } }
        public IList<Transform> Bones { get { return bones; } }
        public int[] Humanoid { get { return humanoid; } }
        public string SourceName { get { return animator.name; } }
    }
}
