// =====================================================================================================
// COMPILE-CHECK SURFACE — NOT A RUNTIME. NOTHING HERE RUNS.
//
// A stub of the few OptiTrack Unity plugin types (NaturalPoint, "OptiTrack Unity Plugin", global
// namespace) that Runtime/Sources/KindOptitrackSource.cs reads when the package is compiled with the
// scripting define KIND_OPTITRACK. Signatures as in the plugin's OptitrackStreamingClient.cs and
// OptitrackSkeletonAnimator.cs (OptitrackSkeletonAnimator.Update reads
// StreamingClient.GetLatestSkeletonState(def.Id).BonePoses[boneId].Position/Orientation, local to the
// parent bone, and builds its bone hierarchy from GetSkeletonDefinitionByName(name).Bones with
// Id/ParentId/Name/Offset). Only compiled by tools/check-csharp.mjs in its KIND_OPTITRACK pass.
// =====================================================================================================
#pragma warning disable 0067, 0649, 0169, 0414
using System;
using System.Collections.Generic;
using UnityEngine;

public class OptitrackPose
{
    public Vector3 Position;
    public Quaternion Orientation;
}

public class OptitrackSkeletonState
{
    public Dictionary<Int32, OptitrackPose> BonePoses;
}

public class OptitrackSkeletonDefinition
{
    public Int32 Id;
    public string Name;
    public List<BoneDefinition> Bones;

    public class BoneDefinition
    {
        public Int32 Id;
        public Int32 ParentId;
        public string Name;
        public Vector3 Offset;
    }
}

public class OptitrackStreamingClient : MonoBehaviour
{
    public static OptitrackStreamingClient FindDefaultClient() { throw null; }
    public OptitrackSkeletonDefinition GetSkeletonDefinitionByName(string skeletonAssetName) { throw null; }
    public OptitrackSkeletonState GetLatestSkeletonState(Int32 skeletonId) { throw null; }
}
