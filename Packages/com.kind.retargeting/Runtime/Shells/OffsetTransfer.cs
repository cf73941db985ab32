using System;
using UnityEngine;

namespace Kind.Retargeting
{
    /// <summary>
    /// A 1:1 transfer between two humanoid Animators by world-rotation offsets captured in their current
    /// poses: on Start (or <see cref="Calibrate"/>) the hub is calibrated with both avatars as they stand
    /// (calibrateIPose: offset = inverse(sourceWorld) * targetWorld, retargeter.ts), then each frame the
    /// target follows (LateUpdate, order 16001). IK off, fingers copied.
    /// Limit: bone pairs are the humanoid bones both Avatars map; arbitrary (non-humanoid) bone pairs, which
    /// TypeScript's OffsetTransfer (src/rig/poseTransfer.ts) supports, are not reachable through the bundle's
    /// exports yet (README "Not yet").
    /// </summary>
    [DefaultExecutionOrder(16001)]
    [AddComponentMenu("Kind Retargeting/Offset Transfer")]
    public sealed class OffsetTransfer : MonoBehaviour
    {
        public Animator source;
        public Animator target;
        [Tooltip("Calibrate on the first frame with both avatars as they stand.")]
        public bool calibrateOnStart = true;

        KindAvatarDriver driver;
        bool calibrated;

        void Start()
        {
            try
            {
                driver = new KindAvatarDriver(KindRuntime.Get(), name + " offset", new KindAnimatorPose(source), target,
                    "{\"ik\":\"off\",\"hipsMode\":\"room\",\"fingers\":\"rotation\"}", this);
            }
            catch (Exception e) { Debug.LogError("KindRetargeting: OffsetTransfer: " + e.Message, this); enabled = false; }
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
            if (ok) { driver.ApplyBody(); driver.ApplyHead(); }
        }

        void OnDestroy()
        {
            if (driver != null) { driver.Destroy(); driver = null; }
        }
    }
}
