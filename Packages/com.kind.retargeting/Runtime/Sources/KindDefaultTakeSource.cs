using System;
using System.Collections.Generic;
using UnityEngine;

namespace KindRetargeting
{
    /// <summary>
    /// The embedded default walk as the source, with no asset of the user's (issue 21 part 6): on first use it asks
    /// the bundle for <c>defaultTake()</c> (TsProject/src/unity/defaultTake.ts, the same take `kind retarget` uses
    /// with no arguments: a 21-bone OptiTrack Motive skeleton, 121 frames at 30 fps), builds that skeleton as
    /// transforms under this GameObject (rest pose; optional capsules to see it) and plays it in a loop.
    /// The hubs read the rest pose when they are created (the first frame); the take is applied in LateUpdate,
    /// so a hub reading in Update sees the previous frame's pose (one frame of latency, as with an Animator).
    /// Per frame: one frame's local rotations and the hips position copied from arrays read once (no garbage).
    /// </summary>
    [AddComponentMenu("Kind Retargeting/Source: Default Walk")]
    public class KindDefaultTakeSource : KindPoseSource
    {
        [Tooltip("Play speed (1 = the take's own 30 fps).")]
        [Range(0f, 3f)]
        public float speed = 1f;

        [Tooltip("Walk on the spot: remove the hips' straight-line travel from the first frame to the last, so the loop does not jump back.")]
        public bool inPlace = true;

        [Tooltip("Add capsules on the bones so the skeleton can be seen (it has no mesh).")]
        public bool showBones = true;

        [Tooltip("Capsule radius of the shown bones, metres.")]
        public float boneRadius = 0.03f;

        KindTake take;
        List<Transform> bones;
        int[] humanoid;
        double time;
        string error;

        public override bool IsReady { get { Build(); return bones != null; } }
        public override IList<Transform> Bones { get { Build(); return bones; } }
        public override int[] Humanoid { get { Build(); return humanoid; } }

        /// <summary>The take being played (null until built).</summary>
        public KindTake Take { get { return take; } }

        /// <summary>Why the skeleton could not be built (the bundle not loaded, an old bundle without defaultTake), or null.</summary>
        public string LastError { get { return error; } }

        /// <summary>The frame shown now.</summary>
        public int CurrentFrame { get { return take == null ? 0 : take.FrameAt(time); } }

        void Awake() { Build(); }

        void Build()
        {
            if (bones != null || error != null) return;
            try
            {
                KindRuntime runtime = KindRuntime.Get();
                string json = runtime.DefaultTake();
                take = KindTake.Parse(json);
            }
            catch (Exception e)
            {
                error = e.Message;
                Debug.LogError("KindRetargeting: the default walk source could not read the take from the bundle: " + e.Message, this);
                return;
            }
            if (inPlace) take.RemoveTravel();
            int n = take.BoneCount;
            var list = new List<Transform>(n);
            for (int i = 0; i < n; i++)
            {
                Transform parent = take.Parents[i] < 0 ? transform : list[take.Parents[i]];
                var t = new GameObject(take.Names[i]).transform;
                t.SetParent(parent, false);
                t.localPosition = new Vector3(take.RestLocalPositions[3 * i], take.RestLocalPositions[3 * i + 1], take.RestLocalPositions[3 * i + 2]);
                t.localRotation = new Quaternion(take.RestLocalRotations[4 * i], take.RestLocalRotations[4 * i + 1], take.RestLocalRotations[4 * i + 2], take.RestLocalRotations[4 * i + 3]);
                list.Add(t);
            }
            humanoid = take.Humanoid;
            bones = list;
            if (showBones) KindCodeHumanoid.AddShapes(list, boneRadius);
        }

        void LateUpdate()
        {
            if (bones == null) return;
            time += Time.deltaTime * speed;
            Apply(take.FrameAt(time));
        }

        /// <summary>Poses the skeleton at frame <paramref name="frame"/> (0 .. FrameCount-1): every bone's local rotation, the root's local position.</summary>
        public void Apply(int frame)
        {
            if (bones == null) return;
            int n = take.BoneCount;
            float[] r = take.Rotations;
            int o = frame * n * 4;
            for (int i = 0; i < n; i++, o += 4)
                bones[i].localRotation = new Quaternion(r[o], r[o + 1], r[o + 2], r[o + 3]);
            float[] p = take.HipsPositions;
            // the root bone (the BVH's ROOT, its hips) carries the take's translation
            bones[0].localPosition = new Vector3(p[3 * frame], p[3 * frame + 1], p[3 * frame + 2]);
        }
    }
}
