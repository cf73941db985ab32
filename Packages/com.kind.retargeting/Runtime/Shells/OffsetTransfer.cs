using System;
using UnityEngine;

namespace KindRetargeting
{
    /// <summary>
    /// A 1:1 transfer between two humanoid Animators (HumanBodyBones 0..54) by world-rotation offsets
    /// captured in their current poses: on Start (or <see cref="Calibrate"/>) the hub is calibrated with
    /// both avatars as they stand (calibrateIPose: offset = inverse(sourceWorld) * targetWorld,
    /// retargeter.ts), then each frame the target follows (LateUpdate, order 16001), IK off, fingers
    /// copied; with <see cref="copyPositions"/> every bone both avatars map also gets the source bone's
    /// world position (the original's 1:1 copy, for avatars of the same proportions).
    /// Limit: bone pairs are the humanoid bones both Avatars map; arbitrary (non-humanoid) bone pairs, which
    /// TypeScript's OffsetTransfer (src/rig/poseTransfer.ts) supports, are not reachable through the bundle's
    /// exports yet (README "Not yet").
    /// </summary>
    [DefaultExecutionOrder(16001)]
    [AddComponentMenu("Kind Retargeting/Offset Transfer")]
    public class OffsetTransfer : MonoBehaviour
    {
        public Animator source;
        public Animator target;
        [Tooltip("Calibrate on the first frame with both avatars as they stand.")]
        public bool calibrateOnStart = true;
        [Tooltip("Copy each mapped bone's world position too (bones 0..54), after the rotations.")]
        public bool copyPositions = true;

        /// <summary>HumanBodyBones 0..54 (LastBone excluded).</summary>
        public const int BoneCount = 55;

        KindAvatarDriver driver;
        bool calibrated;
        readonly Transform[] sourceBones = new Transform[BoneCount];
        readonly Transform[] targetBones = new Transform[BoneCount];

        void Start()
        {
            try
            {
                driver = new KindAvatarDriver(KindRuntime.Get(), name + " offset", new KindAnimatorPose(source), target,
                    "{\"ik\":\"off\",\"hipsMode\":\"room\",\"fingers\":\"rotation\"}", this);
            }
            catch (Exception e) { Debug.LogError("KindRetargeting: OffsetTransfer: " + e.Message, this); enabled = false; return; }
            for (int b = 0; b < BoneCount; b++)
            {
                sourceBones[b] = source.GetBoneTransform((HumanBodyBones)b);
                targetBones[b] = target.GetBoneTransform((HumanBodyBones)b);
            }
        }

        [ContextMenu("Calibrate")]
        public void Calibrate()
        {
            if (driver != null) driver.CommandLogged("{\"action\":\"calibrateIPose\"}", this);
            calibrated = true;
        }

        void LateUpdate()
        {
            if (driver == null) return;
            bool ok = driver.Step(Time.deltaTime);
            // The hub calibrates on the pose it was last given, so the first frame is sent before calibrating.
            if (calibrateOnStart && !calibrated) { Calibrate(); return; }
            if (!ok) return;
            driver.ApplyBody();
            driver.ApplyHead();
            if (!copyPositions) return;
            for (int b = 0; b < BoneCount; b++)
            {
                Transform s = sourceBones[b], t = targetBones[b];
                if (s != null && t != null) t.position = s.position;
            }
        }

        void OnDestroy()
        {
            if (driver != null) { driver.Destroy(); driver = null; }
        }
    }
}
