// =====================================================================================================
// COMPILE-CHECK SURFACE — NOT A RUNTIME. NOTHING HERE RUNS.
//
// A stub of the OptiTrack Unity plugin types (NaturalPoint, "OptiTrack Unity Plugin", loose scripts in
// the global namespace under Assets/OptiTrack/Scripts, compiled by Unity into Assembly-CSharp) that the
// package sample Samples~/OptiTrack/KindOptitrackSource.cs reads. tools/check-csharp.mjs compiles this
// stub and that sample together as Assembly-CSharp, the way Unity does once the sample is imported.
// Names and signatures as in the plugin's OptitrackStreamingClient.cs (plugin 1.x, e.g. the copy in
// github.com/Won-Jang/Optitrack_Agent Assets/OptiTrack/Scripts/OptitrackStreamingClient.cs):
//   enum StreamingCoordinatesValues { Local, Global };
//   OptitrackStreamingClient.SkeletonCoordinates (field, default Local; with Global the client asks
//   Motive for world bone poses: "SetProperty,,Skeleton Coordinates,false");
//   OptitrackSkeletonState.BonePoses / LocalBonePoses (Dictionary<Int32, OptitrackPose>); with Global,
//   LocalBonePoses[id] = { Position: world(id) - world(parent), Orientation: inverse(world(parent)) *
//   world(id) } (OnNatNetFrameReceived);
//   OptitrackSkeletonDefinition { Id, Name, Bones (BoneDefinition Id/ParentId/Name/Offset),
//   BoneIdToParentIdMap }.
// OptitrackSkeletonAnimator.Update reads LocalBonePoses when SkeletonCoordinates == Global, else
// BonePoses, and writes them as the bone transforms' local pose. Only what the sample uses is declared.
// =====================================================================================================
#pragma warning disable 0067, 0649, 0169, 0414
using System;
using System.Collections.Generic;
using UnityEngine;

public enum StreamingCoordinatesValues
{
    Local,
    Global
}

public class OptitrackPose
{
    public Vector3 Position;
    public Quaternion Orientation;
}

public class OptitrackSkeletonState
{
    public Dictionary<Int32, OptitrackPose> BonePoses;
    public Dictionary<Int32, OptitrackPose> LocalBonePoses;
}

public class OptitrackSkeletonDefinition
{
    public class BoneDefinition
    {
        public Int32 Id;
        public Int32 ParentId;
        public string Name;
        public Vector3 Offset;
    }

    public Int32 Id;
    public string Name;
    public List<BoneDefinition> Bones;
    public Dictionary<Int32, Int32> BoneIdToParentIdMap;
}

public class OptitrackStreamingClient : MonoBehaviour
{
    public StreamingCoordinatesValues SkeletonCoordinates = StreamingCoordinatesValues.Local;
    public static OptitrackStreamingClient FindDefaultClient() { throw null; }
    public OptitrackSkeletonDefinition GetSkeletonDefinitionByName(string skeletonAssetName) { throw null; }
    public OptitrackSkeletonState GetLatestSkeletonState(Int32 skeletonId) { throw null; }
}
