// Source adapters: where the driving pose comes from. A source exposes a fixed list of transforms
// (parents first) with a HumanBodyBones map; the shells read their WORLD positions/rotations once per
// frame into the input buffer (KindBridgeLayout). Sources run at execution order -100 (before the hubs).
using System.Collections.Generic;
using UnityEngine;

namespace KindRetargeting
{
    /// <summary>A skeleton the hubs can read: transforms in parents-first order and their humanoid map.</summary>
    public interface IKindPoseSource
    {
        /// <summary>True once <see cref="Bones"/> is final (some sources build it after the stream starts).</summary>
        bool IsReady { get; }
        /// <summary>The source's transforms, parents before children. Fixed once ready.</summary>
        IList<Transform> Bones { get; }
        /// <summary>Index into <see cref="Bones"/> per HumanBodyBones value (55 entries), -1 where missing.</summary>
        int[] Humanoid { get; }
        /// <summary>Name of the source for messages.</summary>
        string SourceName { get; }
    }

    /// <summary>
    /// A source that also gives a confidence per bone: the webcam mocap stream (<see cref="KindBrowserMocapSource"/>),
    /// whose bones are the mocap's 21 in the stream's order (TsProject/src/mocap/bones.ts MOCAP_BONES). The hubs
    /// reading it say <c>"mocap":true</c> in their setup's source and send <see cref="Confidence"/> each frame
    /// as the input's confidence tail (KindBridgeLayout), so the bundle lowers the IK weight of an unseen limb
    /// and pins the feet in contact (src/mocap/hubDriver.ts).
    /// </summary>
    public interface IKindConfidenceSource : IKindPoseSource
    {
        /// <summary>Confidence per bone of <see cref="IKindPoseSource.Bones"/>, [0, 1]; null or short: 1 (seen) for the bones it lacks.</summary>
        float[] Confidence { get; }
    }

    /// <summary>Serializable base of the source adapters (Unity cannot serialize an interface field).</summary>
    [DefaultExecutionOrder(-100)]
    public abstract class KindPoseSource : MonoBehaviour, IKindPoseSource
    {
        public abstract bool IsReady { get; }
        public abstract IList<Transform> Bones { get; }
        public abstract int[] Humanoid { get; }
        public virtual string SourceName { get { return name; } }
    }
}
