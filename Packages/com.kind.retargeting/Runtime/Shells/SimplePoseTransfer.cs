using System;
using UnityEngine;
using UnityEngine.Serialization;

namespace KindRetargeting
{
    /// <summary>
    /// One driving avatar copied onto N avatars (order 16001: after every hub's Update and LateUpdate, so
    /// it reads the source's final pose, head included), with the original KindRetargeting's members:
    /// <see cref="targets"/> (<see cref="TargetEntry"/>) entries with animator, hipOffset (world, metres) and syncRootScale;
    /// <see cref="transferHeadScale"/>; <see cref="Init"/>, callable again after Play (targets added or
    /// changed). One hub per target, created with the source avatar's skeleton as its source and IK off;
    /// all work is in LateUpdate: one update() per target. Each avatar stands at its own root as the source
    /// stands at its root (KindAvatarDriver.SourceInRootSpace), moved by its hipOffset. Root scale sync: the
    /// target's avatarScale follows the source's hips scale (its current hips localScale.x over the value at
    /// Init) times the target's own scale; head scale transfer likewise with the head bone.
    /// </summary>
    [DefaultExecutionOrder(16001)]
    [AddComponentMenu("Kind Retargeting/Simple Pose Transfer")]
    public class SimplePoseTransfer : MonoBehaviour
    {
        [Serializable]
        public class TargetEntry
        {
            public Animator animator;
            [Tooltip("World metres: the avatar stands that much further than it would (room mode).")]
            public Vector3 hipOffset;
            [Tooltip("The target's avatar scale follows the source's.")]
            public bool syncRootScale = true;
            [Tooltip("This target's own scale (extra), multiplied with the synced one.")]
            [Range(0.1f, 3f)] public float scale = 1f;
            [NonSerialized] public KindAvatarDriver driver;
            [NonSerialized] public float sentScale = float.NaN;
            [NonSerialized] public float sentHeadScale = float.NaN;
        }

        [Tooltip("The driving avatar (humanoid Animator), e.g. the one a CustomRetargetingScript drives. The original's field name.")]
        [FormerlySerializedAs("sourceAvatar")]
        public Animator sourceBone;
        public TargetEntry[] targets = new TargetEntry[0];

        /// <summary>Same as <see cref="sourceBone"/> (this package's earlier name, kept).</summary>
        public Animator sourceAvatar { get { return sourceBone; } set { sourceBone = value; } }
        [Tooltip("The targets' head scale follows the source's head bone scale.")]
        public bool transferHeadScale = true;
        public KindHipsMode hipsMode = KindHipsMode.Room;

        KindAnimatorPose source;
        Transform sourceHips, sourceHead;
        float sourceRestHipsScale = 1f, sourceRestHeadScale = 1f;

        /// <summary>True when every target with an Animator has its hub (Init ran after the targets were set).</summary>
        public bool IsInitialized
        {
            get
            {
                if (source == null) return false;
                foreach (TargetEntry t in targets) if (t != null && t.animator != null && t.driver == null) return false;
                return true;
            }
        }

        void Start() { Init(); }

        /// <summary>
        /// (Re)creates one hub per target (the previous ones are destroyed), e.g. after adding targets in Play
        /// mode. Logs and skips a target that cannot be driven; disables the component without a source.
        /// </summary>
        public void Init()
        {
            Release();
            if (sourceAvatar == null) { Debug.LogError("KindRetargeting: SimplePoseTransfer needs a source avatar", this); enabled = false; return; }
            try { source = new KindAnimatorPose(sourceAvatar); }
            catch (Exception e) { Debug.LogError("KindRetargeting: SimplePoseTransfer: " + e.Message, this); enabled = false; return; }
            sourceHips = sourceAvatar.GetBoneTransform(HumanBodyBones.Hips);
            sourceHead = sourceAvatar.GetBoneTransform(HumanBodyBones.Head);
            sourceRestHipsScale = sourceHips != null ? sourceHips.localScale.x : 1f;
            sourceRestHeadScale = sourceHead != null ? sourceHead.localScale.x : 1f;
            string options = "{\"ik\":\"off\",\"hipsMode\":\"" + (hipsMode == KindHipsMode.Room ? "room" : "scaled") + "\",\"fingers\":\"rotation\"}";
            for (int i = 0; i < targets.Length; i++)
            {
                TargetEntry t = targets[i];
                if (t == null || t.animator == null) continue;
                t.sentScale = t.sentHeadScale = float.NaN;
                try { t.driver = new KindAvatarDriver(KindRuntime.Get(), name + " -> " + t.animator.name, source, t.animator, options, this); }
                catch (Exception e) { Debug.LogError("KindRetargeting: SimplePoseTransfer target " + i + " '" + t.animator.name + "': " + e.Message, this); }
            }
            enabled = true;
        }

        void LateUpdate()
        {
            if (source == null) return;
            float sourceScale = sourceHips != null && sourceRestHipsScale != 0f ? sourceHips.localScale.x / sourceRestHipsScale : 1f;
            float headScale = sourceHead != null && sourceRestHeadScale != 0f ? sourceHead.localScale.x / sourceRestHeadScale : 1f;
            float dt = Time.deltaTime;
            for (int i = 0; i < targets.Length; i++)
            {
                TargetEntry t = targets[i];
                if (t == null || t.driver == null) continue;
                float s = t.syncRootScale ? t.scale * sourceScale : t.scale;
                if (s != t.sentScale) { t.sentScale = s; t.driver.SetValue("avatarScale", Mathf.Clamp(s, 0.1f, 3f), this); }
                if (transferHeadScale && headScale != t.sentHeadScale) { t.sentHeadScale = headScale; t.driver.SetValue("headScale", Mathf.Clamp(headScale, 0.1f, 3f), this); }
                // world offset -> the target root's frame, where the driver adds it to the source pose
                t.driver.SourceOffset = t.animator.transform.InverseTransformVector(t.hipOffset);
                if (t.driver.Step(dt)) { t.driver.ApplyBody(); t.driver.ApplyHead(); }
            }
        }

        void Release()
        {
            foreach (var t in targets) if (t != null && t.driver != null) { t.driver.Destroy(); t.driver = null; }
            source = null;
        }

        void OnDestroy() { Release(); }
    }
}
