using System;
using System.Collections.Generic;
using UnityEngine;

namespace Kind.Retargeting
{
    /// <summary>
    /// One driving avatar copied onto N avatars (order 16001: after every hub's Update and LateUpdate, so
    /// it reads the source's final pose, head included). One hub per target, created with the source
    /// avatar's skeleton as its source and IK off; all work is in LateUpdate: one update() per target.
    /// Each avatar stands at its own root as the source stands at its root (KindAvatarDriver.SourceInRootSpace);
    /// the hips offset is added to the source pose as that target sees it (room mode: the avatar stands
    /// exactly that much further). Root scale sync: the target's avatarScale follows the source's hips scale
    /// (its current hips localScale.x over the rest value) times the target's own scale.
    /// </summary>
    [DefaultExecutionOrder(16001)]
    [AddComponentMenu("Kind Retargeting/Simple Pose Transfer")]
    public sealed class SimplePoseTransfer : MonoBehaviour
    {
        [Serializable]
        public sealed class Target
        {
            public Animator avatar;
            [Tooltip("Metres, added to the source pose as this target sees it (relative to the source's root), so in room mode the avatar stands that far from where it would.")]
            public Vector3 hipsOffset;
            [Tooltip("The target's avatar scale follows the source's.")]
            public bool rootScaleSync = true;
            [Range(0.1f, 3f)] public float scale = 1f;
            [NonSerialized] public KindAvatarDriver driver;
            [NonSerialized] public float sentScale = float.NaN;
        }

        [Tooltip("The driving avatar (humanoid Animator), e.g. the one a CustomRetargetingScript drives.")]
        public Animator sourceAvatar;
        public List<Target> targets = new List<Target>();
        public KindHipsMode hipsMode = KindHipsMode.Room;

        KindAnimatorPose source;
        Transform sourceHips;
        float sourceRestHipsScale = 1f;

        void Start()
        {
            if (sourceAvatar == null) { Debug.LogError("KindRetargeting: SimplePoseTransfer needs a source avatar", this); enabled = false; return; }
            try { source = new KindAnimatorPose(sourceAvatar); }
            catch (Exception e) { Debug.LogError("KindRetargeting: SimplePoseTransfer: " + e.Message, this); enabled = false; return; }
            sourceHips = sourceAvatar.GetBoneTransform(HumanBodyBones.Hips);
            sourceRestHipsScale = sourceHips.localScale.x;
            string options = "{\"ik\":\"off\",\"hipsMode\":\"" + (hipsMode == KindHipsMode.Room ? "room" : "scaled") + "\",\"fingers\":\"rotation\"}";
            for (int i = 0; i < targets.Count; i++)
            {
                Target t = targets[i];
                if (t.avatar == null) continue;
                try { t.driver = new KindAvatarDriver(KindRuntime.Get(), name + " -> " + t.avatar.name, source, t.avatar, options, this); }
                catch (Exception e) { Debug.LogError("KindRetargeting: SimplePoseTransfer target " + i + " '" + t.avatar.name + "': " + e.Message, this); }
            }
        }

        void LateUpdate()
        {
            float sourceScale = sourceRestHipsScale != 0f ? sourceHips.localScale.x / sourceRestHipsScale : 1f;
            float dt = Time.deltaTime;
            for (int i = 0; i < targets.Count; i++)
            {
                Target t = targets[i];
                if (t.driver == null) continue;
                float s = t.rootScaleSync ? t.scale * sourceScale : t.scale;
                if (s != t.sentScale) { t.sentScale = s; t.driver.SetValue("avatarScale", Mathf.Clamp(s, 0.1f, 3f), this); }
                t.driver.SourceOffset = t.hipsOffset;
                if (t.driver.Step(dt)) { t.driver.ApplyBody(); t.driver.ApplyHead(); }
            }
        }

        void OnDestroy()
        {
            foreach (var t in targets) if (t.driver != null) { t.driver.Destroy(); t.driver = null; }
        }
    }
}
