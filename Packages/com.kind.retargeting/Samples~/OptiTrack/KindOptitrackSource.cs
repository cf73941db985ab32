// Package sample "OptiTrack source" (Samples~/OptiTrack of com.kind.retargeting). Import it from the
// Package Manager only in a project that has the OptiTrack Unity plugin: the plugin ships loose scripts
// (OptitrackStreamingClient and friends, global namespace) that Unity compiles into Assembly-CSharp (or
// Assembly-CSharp-firstpass under Assets/Plugins), and only scripts there can see them; an asmdef
// assembly such as Kind.Retargeting.Runtime cannot reference Assembly-CSharp. Imported into Assets, this
// script is in Assembly-CSharp too, sees the plugin, and sees the package's runtime (an autoReferenced
// asmdef). tools/check-csharp.mjs compiles it that way against tools/csharp-check/OptiTrack.Stub.cs.
using System;
using System.Collections.Generic;
using UnityEngine;

namespace KindRetargeting
{
    /// <summary>
    /// The OptiTrack Unity plugin's streamed skeleton as the source, read the way its
    /// OptitrackSkeletonAnimator does: a hidden GameObject per bone from
    /// OptitrackStreamingClient.GetSkeletonDefinitionByName(name).Bones (parent by ParentId, local position
    /// Offset), and every frame each bone's pose relative to its parent written onto those transforms; the
    /// hubs then read their world poses. Motive bone names map to HumanBodyBones through
    /// <see cref="MotiveNames"/> (an "&lt;asset&gt;_" prefix is stripped).
    /// <para>Which dictionary holds the parent-relative pose depends on the client's
    /// <c>SkeletonCoordinates</c> (the plugin's OptitrackSkeletonAnimator.Update makes the same choice):
    /// Local -> <c>BonePoses</c> (Motive streams parent-relative poses); Global -> <c>LocalBonePoses</c>
    /// (Motive streams world poses into <c>BonePoses</c>, and the plugin's
    /// OptitrackStreamingClient.OnNatNetFrameReceived derives LocalBonePoses: orientation
    /// inverse(parent world) * bone world, position bone world - parent world, still in world axes).
    /// That position is rotated here into the parent's frame, inverse(parent world orientation) * p, so a
    /// bone under a turned parent lands where Motive put it (the plugin's animator writes it unrotated).</para>
    /// Per frame: dictionary look-ups and transform writes only, no allocation.
    /// </summary>
    [AddComponentMenu("Kind Retargeting/Source: OptiTrack")]
    public class KindOptitrackSource : KindPoseSource
    {
        [Tooltip("The plugin's streaming client. Empty: OptitrackStreamingClient.FindDefaultClient().")]
        public OptitrackStreamingClient streamingClient;

        [Tooltip("The skeleton asset name in Motive.")]
        public string skeletonAssetName = "Skeleton1";

        OptitrackSkeletonDefinition definition;
        readonly List<Transform> bones = new List<Transform>();
        readonly List<int> boneIds = new List<int>();
        readonly List<int> parentIds = new List<int>();
        int[] humanoid;
        GameObject root;

        /// <summary>Motive bone names (the plugin's Motive convention) -> HumanBodyBones.</summary>
        public static readonly Dictionary<string, HumanBodyBones> MotiveNames = new Dictionary<string, HumanBodyBones>
        {
            { "Hip", HumanBodyBones.Hips }, { "Ab", HumanBodyBones.Spine }, { "Chest", HumanBodyBones.Chest },
            { "Neck", HumanBodyBones.Neck }, { "Head", HumanBodyBones.Head },
            { "LShoulder", HumanBodyBones.LeftShoulder }, { "LUArm", HumanBodyBones.LeftUpperArm },
            { "LFArm", HumanBodyBones.LeftLowerArm }, { "LHand", HumanBodyBones.LeftHand },
            { "RShoulder", HumanBodyBones.RightShoulder }, { "RUArm", HumanBodyBones.RightUpperArm },
            { "RFArm", HumanBodyBones.RightLowerArm }, { "RHand", HumanBodyBones.RightHand },
            { "LThigh", HumanBodyBones.LeftUpperLeg }, { "LShin", HumanBodyBones.LeftLowerLeg },
            { "LFoot", HumanBodyBones.LeftFoot }, { "LToe", HumanBodyBones.LeftToes },
            { "RThigh", HumanBodyBones.RightUpperLeg }, { "RShin", HumanBodyBones.RightLowerLeg },
            { "RFoot", HumanBodyBones.RightFoot }, { "RToe", HumanBodyBones.RightToes },
            { "LThumb1", HumanBodyBones.LeftThumbProximal }, { "LThumb2", HumanBodyBones.LeftThumbIntermediate }, { "LThumb3", HumanBodyBones.LeftThumbDistal },
            { "LIndex1", HumanBodyBones.LeftIndexProximal }, { "LIndex2", HumanBodyBones.LeftIndexIntermediate }, { "LIndex3", HumanBodyBones.LeftIndexDistal },
            { "LMiddle1", HumanBodyBones.LeftMiddleProximal }, { "LMiddle2", HumanBodyBones.LeftMiddleIntermediate }, { "LMiddle3", HumanBodyBones.LeftMiddleDistal },
            { "LRing1", HumanBodyBones.LeftRingProximal }, { "LRing2", HumanBodyBones.LeftRingIntermediate }, { "LRing3", HumanBodyBones.LeftRingDistal },
            { "LPinky1", HumanBodyBones.LeftLittleProximal }, { "LPinky2", HumanBodyBones.LeftLittleIntermediate }, { "LPinky3", HumanBodyBones.LeftLittleDistal },
            { "RThumb1", HumanBodyBones.RightThumbProximal }, { "RThumb2", HumanBodyBones.RightThumbIntermediate }, { "RThumb3", HumanBodyBones.RightThumbDistal },
            { "RIndex1", HumanBodyBones.RightIndexProximal }, { "RIndex2", HumanBodyBones.RightIndexIntermediate }, { "RIndex3", HumanBodyBones.RightIndexDistal },
            { "RMiddle1", HumanBodyBones.RightMiddleProximal }, { "RMiddle2", HumanBodyBones.RightMiddleIntermediate }, { "RMiddle3", HumanBodyBones.RightMiddleDistal },
            { "RRing1", HumanBodyBones.RightRingProximal }, { "RRing2", HumanBodyBones.RightRingIntermediate }, { "RRing3", HumanBodyBones.RightRingDistal },
            { "RPinky1", HumanBodyBones.RightLittleProximal }, { "RPinky2", HumanBodyBones.RightLittleIntermediate }, { "RPinky3", HumanBodyBones.RightLittleDistal },
        };

        public override bool IsReady { get { return humanoid != null; } }
        public override IList<Transform> Bones { get { return bones; } }
        public override int[] Humanoid { get { return humanoid; } }
        public override string SourceName { get { return "OptiTrack " + skeletonAssetName; } }

        void Update()
        {
            if (streamingClient == null) streamingClient = OptitrackStreamingClient.FindDefaultClient();
            if (streamingClient == null) return;
            if (definition == null && !Build()) return;
            OptitrackSkeletonState state = streamingClient.GetLatestSkeletonState(definition.Id);
            if (state == null) return;
            bool global = streamingClient.SkeletonCoordinates == StreamingCoordinatesValues.Global;
            Dictionary<int, OptitrackPose> local = global ? state.LocalBonePoses : state.BonePoses;
            if (local == null || (global && state.BonePoses == null)) return;
            for (int i = 0; i < bones.Count; i++)
            {
                OptitrackPose pose;
                if (!local.TryGetValue(boneIds[i], out pose)) continue;
                Vector3 position = pose.Position;
                OptitrackPose parentWorld;
                if (global && parentIds[i] != 0 && state.BonePoses.TryGetValue(parentIds[i], out parentWorld))
                    position = Quaternion.Inverse(parentWorld.Orientation) * position;
                bones[i].localPosition = position;
                bones[i].localRotation = pose.Orientation;
            }
        }

        bool Build()
        {
            definition = streamingClient.GetSkeletonDefinitionByName(skeletonAssetName);
            if (definition == null) return false;
            root = new GameObject("Kind OptiTrack Skeleton - " + skeletonAssetName);
            root.hideFlags = HideFlags.DontSave;
            root.transform.SetParent(streamingClient.transform, false);
            var byId = new Dictionary<int, Transform>();
            humanoid = new int[KindBridgeLayout.HumanBoneCount];
            for (int h = 0; h < humanoid.Length; h++) humanoid[h] = -1;
            // Bones arrive parents first in the plugin's definition (it parents each bone to an earlier one).
            foreach (OptitrackSkeletonDefinition.BoneDefinition b in definition.Bones)
            {
                var go = new GameObject(b.Name);
                Transform parent;
                if (b.ParentId == 0 || !byId.TryGetValue(b.ParentId, out parent)) parent = root.transform;
                go.transform.SetParent(parent, false);
                go.transform.localPosition = b.Offset;
                byId[b.Id] = go.transform;
                string shortName = b.Name;
                int us = shortName.LastIndexOf('_');
                if (us >= 0) shortName = shortName.Substring(us + 1);
                HumanBodyBones hb;
                if (MotiveNames.TryGetValue(shortName, out hb) && humanoid[(int)hb] < 0) humanoid[(int)hb] = bones.Count;
                bones.Add(go.transform);
                boneIds.Add(b.Id);
                parentIds.Add(b.ParentId);
            }
            if (humanoid[(int)HumanBodyBones.Hips] < 0)
            {
                Debug.LogError("KindRetargeting: OptiTrack skeleton '" + skeletonAssetName + "' has no Hip bone (Motive naming expected)", this);
                humanoid = null;
                definition = null;
                bones.Clear();
                boneIds.Clear();
                parentIds.Clear();
                Destroy(root);
                return false;
            }
            return true;
        }

        void OnDestroy()
        {
            if (root != null) Destroy(root);
        }
    }
}
