// The per-avatar plumbing shared by the shells: one hub, one reused input buffer, one call per frame,
// the output applied to the target's transforms. Allocation per frame: none in C# in the reflection JsEnv
// (KindResultBuffer); the IL2CPP-optimised JsEnv allocates update's result (README "Per-frame cost").
using System;
using System.Collections.Generic;
using Puerts;
using UnityEngine;

namespace KindRetargeting
{
    /// <summary>One hub driving one target Animator from one source. Main thread only.</summary>
    public sealed class KindAvatarDriver
    {
        /// <summary>The hub's name (characterName in the remote protocol).</summary>
        public readonly string Name;
        /// <summary>The hub handle (survives hot reloads).</summary>
        public int Handle { get; private set; }
        /// <summary>The target transforms, in the order of the setup's target list and of the output rotations.</summary>
        public readonly List<Transform> TargetBones;
        /// <summary>Added to every source position (metres, in the target root's frame) before it is sent: moves the avatar in room mode.</summary>
        public Vector3 SourceOffset;
        /// <summary>
        /// Send the source pose relative to the source's root (the parent of its first bone, e.g. the source
        /// Animator's GameObject; position and rotation, not scale). The output is relative to the target's
        /// root (the target list starts below the target Animator), so each avatar then stands at its own root
        /// as the source stands at its root: avatars can be placed side by side. Off: the source's world pose
        /// is sent and the target root should sit at the world origin. Default true.
        /// </summary>
        public bool SourceInRootSpace = true;
        /// <summary>The last error of update (logged once), or null after a good frame.</summary>
        public string LastError { get; private set; }
        /// <summary>True once an output has been applied.</summary>
        public bool HasPose { get; private set; }

        readonly KindRuntime runtime;
        readonly IKindPoseSource source;
        /// <summary>The source as a confidence source (webcam mocap), or null: the input then has no tail.</summary>
        readonly IKindConfidenceSource confidenceSource;
        readonly Animator target;
        readonly int sourceCount, targetCount, hipsIndex, headIndex;
        readonly Vector3 restHipsScale, restHeadScale;
        readonly float[] input;
        readonly byte[] inputBytes;
        readonly ArrayBuffer inputBuffer;
        readonly float[] output;
        int frame;

        /// <summary>Builds the setup JSON and creates the hub. Throws with the bundle's message (naming the field) on a bad setup.</summary>
        public KindAvatarDriver(KindRuntime runtime, string name, IKindPoseSource source, Animator target, string optionsJson, Component owner)
        {
            if (target == null) throw new ArgumentNullException("target", name + ": no target Animator");
            if (!target.isHuman) throw new ArgumentException(name + ": target Animator '" + target.name + "' is not humanoid");
            if (source == null || !source.IsReady) throw new ArgumentException(name + ": the source is not ready");
            this.runtime = runtime;
            this.source = source;
            this.target = target;
            Name = name;
            TargetBones = KindSkeleton.CollectBelow(target.transform);
            int[] targetHumanoid = KindSkeleton.HumanoidMap(target, TargetBones);
            hipsIndex = targetHumanoid[(int)HumanBodyBones.Hips];
            headIndex = targetHumanoid[(int)HumanBodyBones.Head];
            if (hipsIndex < 0) throw new ArgumentException(name + ": target has no Hips bone");
            restHipsScale = TargetBones[hipsIndex].localScale;
            restHeadScale = headIndex >= 0 ? TargetBones[headIndex].localScale : Vector3.one;
            sourceCount = source.Bones.Count;
            targetCount = TargetBones.Count;
            confidenceSource = source as IKindConfidenceSource;
            input = new float[confidenceSource != null ? KindBridgeLayout.InputFloatCountWithConfidence(sourceCount) : KindBridgeLayout.InputFloatCount(sourceCount)];
            inputBytes = new byte[input.Length * 4];
            inputBuffer = new ArrayBuffer(inputBytes, inputBytes.Length);
            output = new float[KindBridgeLayout.OutputFloatCount(targetCount)];
            string setup = KindSkeleton.Setup(name, source, TargetBones, targetHumanoid, optionsJson);
            Handle = runtime.CreateHub(name, setup, owner);
        }

        /// <summary>
        /// Reads the source (and, for an <see cref="IKindConfidenceSource"/>, its confidences into the input's
        /// tail), calls update once, unpacks the output. Returns true when a new pose is ready to
        /// apply; on an error logs it once (naming the field) and keeps the last pose.
        /// </summary>
        public bool Step(float dt)
        {
            if (Handle <= 0 || !runtime.IsReady) return false;
            IList<Transform> bones = source.Bones;
            if (bones.Count != sourceCount) return Fail("source '" + source.SourceName + "' changed its bone count from " + sourceCount + " to " + bones.Count);
            Vector3 rootPos = Vector3.zero;
            Quaternion invRoot = Quaternion.identity;
            Transform sourceRoot = sourceCount > 0 ? bones[0].parent : null;
            if (SourceInRootSpace && sourceRoot != null)
            {
                rootPos = sourceRoot.position;
                invRoot = Quaternion.Inverse(sourceRoot.rotation);
            }
            KindBridgeLayout.WriteInputHeader(input, sourceCount, frame++);
            for (int i = 0; i < sourceCount; i++)
            {
                Transform t = bones[i];
                Vector3 p = invRoot * (t.position - rootPos) + SourceOffset;
                KindBridgeLayout.WriteSourceBone(input, sourceCount, i, p, invRoot * t.rotation);
            }
            // a confidence source (webcam mocap): its confidences as the tail, flag input[3] = 1, same call
            if (confidenceSource != null) KindBridgeLayout.WriteConfidenceTail(input, sourceCount, confidenceSource.Confidence);
            KindBridgeLayout.PackFloats(input, input.Length, inputBytes);
            ArrayBuffer result;
            try { result = runtime.UpdateHub(Handle, inputBuffer, dt); }
            catch (Exception e) { return Fail("update: " + e.Message); }
            string problem = KindBridgeLayout.UnpackOutput(result == null ? null : result.Bytes, result == null ? 0 : result.Count, targetCount, output);
            if (problem != null) return Fail(problem);
            if ((int)output[KindBridgeLayout.OutStatus] != KindBridgeLayout.StatusOk) return Fail("output[2] status " + output[KindBridgeLayout.OutStatus] + ": input rejected, pose not updated");
            LastError = null;
            return true;
        }

        bool Fail(string message)
        {
            if (LastError != message) Debug.LogError("KindRetargeting '" + Name + "': " + message + " (keeping the last pose)", target);
            LastError = message;
            return false;
        }

        /// <summary>Applies the body: every target local rotation except the head's, and the hips local position.</summary>
        public void ApplyBody()
        {
            for (int i = 0; i < targetCount; i++)
            {
                if (i == headIndex) continue;
                TargetBones[i].localRotation = KindBridgeLayout.ReadTargetRotation(output, i);
            }
            TargetBones[hipsIndex].localPosition = KindBridgeLayout.ReadHipsPosition(output, targetCount);
            HasPose = true;
        }

        /// <summary>Applies the head rotation and the hips and head scales (after everything of Update).</summary>
        public void ApplyHead()
        {
            int s = KindBridgeLayout.OutputScaleOffset(targetCount);
            if (headIndex >= 0)
            {
                TargetBones[headIndex].localRotation = KindBridgeLayout.ReadTargetRotation(output, headIndex);
                TargetBones[headIndex].localScale = restHeadScale * output[s + 1];
            }
            TargetBones[hipsIndex].localScale = restHipsScale * output[s];
        }

        /// <summary>command(handle, json) -> reply JSON.</summary>
        public string Command(string json) { return runtime.Command(Handle, json); }

        /// <summary>Sends a command and logs a failed reply with the shell as context. Returns the reply.</summary>
        public string CommandLogged(string json, UnityEngine.Object context)
        {
            string reply;
            try { reply = Command(json); }
            catch (Exception e) { Debug.LogError("KindRetargeting '" + Name + "': " + json + ": " + e.Message, context); return null; }
            string d = KindJson.DescribeReply(reply);
            if (d != "ok") Debug.LogWarning("KindRetargeting '" + Name + "': " + json + " -> " + d, context);
            return reply;
        }

        /// <summary>Sets one declared parameter (the remote protocol's updateValueRealtime).</summary>
        public string SetValue(string property, double value, UnityEngine.Object context)
        {
            return CommandLogged("{\"action\":\"updateValueRealtime\",\"property\":" + KindJson.Quote(property) + ",\"value\":" + KindJson.Number(value) + "}", context);
        }

        /// <summary>Sets a boolean parameter.</summary>
        public string SetValue(string property, bool value, UnityEngine.Object context)
        {
            return CommandLogged("{\"action\":\"updateValueRealtime\",\"property\":" + KindJson.Quote(property) + ",\"value\":" + (value ? "true" : "false") + "}", context);
        }

        /// <summary>Sets an enum parameter.</summary>
        public string SetValue(string property, string value, UnityEngine.Object context)
        {
            return CommandLogged("{\"action\":\"updateValueRealtime\",\"property\":" + KindJson.Quote(property) + ",\"value\":" + KindJson.Quote(value) + "}", context);
        }

        /// <summary>Destroys the hub.</summary>
        public void Destroy()
        {
            if (Handle > 0 && runtime != null) runtime.DestroyHub(Handle);
            Handle = 0;
        }
    }
}
