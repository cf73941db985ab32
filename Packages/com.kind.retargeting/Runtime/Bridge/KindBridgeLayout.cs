// The buffer layouts of the C# <-> TypeScript boundary, C# side. The single source of truth on the
// TypeScript side is TsProject/src/unity/layout.ts; the two files describe the same layout and each
// cites the other. The package README ("The boundary") documents it for users.
//
// Input buffer (C# -> TS, little-endian float32), 4 + 7*S floats for S source bones (4 + 8*S with the
// confidence tail):
//   [0] layout version (1), [1] S, [2] frame counter (free use),
//   [3] tail flag: 0 no tail, 1 the confidence tail follows (nothing else; was "reserved 0", so every
//       older input is a flag-0 input and the layout version stays 1),
//   [4 .. 4+3S)     source WORLD positions x y z per bone (metres, Unity coordinates),
//   [4+3S .. 4+7S)  source WORLD rotations x y z w per bone (Unity coordinates),
//   [4+7S .. 4+8S)  flag 1 only: confidence per source bone in [0, 1] (an IKindConfidenceSource, e.g.
//                   KindBrowserMocapSource; the setup's source then says "mocap":true and the hub runs
//                   through the bundle's MocapHubDriver: confidence limb IK weights, causal foot pins).
// Output buffer (TS -> C#, float32), 4 + 4T + 3 + 2 floats for T target bones:
//   [0] layout version, [1] T, [2] status (0 ok; 1 input rejected, pose not updated), [3] reserved,
//   [4 .. 4+4T)     target LOCAL rotations x y z w per bone of the setup's target list (Unity coordinates),
//   [4+4T .. +3)    hips local position (metres, Unity coordinates),
//   [4+4T+3 .. +2)  hips scale, head scale (factors: multiply the rest localScale of those transforms).
// Coordinates: everything crossing is in Unity's frame (left-handed, Y up, metres). TypeScript mirrors
// X on arrival and on departure — position (x, y, z) -> (-x, y, z), rotation (x, y, z, w) -> (x, -y, -z, w)
// — and nothing else does. Mirror* below are that same conversion, for tests and tools; the shells never
// call them on the per-frame path.
using System;
using UnityEngine;
using UnityEngine.Scripting;

namespace KindRetargeting
{
    /// <summary>Layout constants and allocation-free pack/unpack helpers for the bridge buffers.</summary>
    [Preserve]
    public static class KindBridgeLayout
    {
        /// <summary>The layout version both sides agree on (TS export LAYOUT_VERSION).</summary>
        public const int Version = 1;
        /// <summary>Floats in the header of both buffers.</summary>
        public const int HeaderFloats = 4;
        /// <summary>Input header slots.</summary>
        public const int InVersion = 0, InBoneCount = 1, InFrame = 2, InReserved = 3;
        /// <summary>Input header slot 3 is the tail flag (the former reserved slot): its values.</summary>
        public const int InTailFlag = 3, TailNone = 0, TailConfidence = 1;
        /// <summary>Output header slots.</summary>
        public const int OutVersion = 0, OutBoneCount = 1, OutStatus = 2, OutReserved = 3;
        /// <summary>Output status values.</summary>
        public const int StatusOk = 0, StatusInputRejected = 1;
        /// <summary>Floats after the rotations of the output: hips position (3) + hips scale + head scale.</summary>
        public const int OutputTailFloats = 5;
        /// <summary>Number of HumanBodyBones entries in the setup's humanoid arrays (Hips 0 .. UpperChest 54).</summary>
        public const int HumanBoneCount = 55;

        /// <summary>Floats in an input buffer for <paramref name="sourceBones"/> bones: 4 + 7S.</summary>
        public static int InputFloatCount(int sourceBones) { return HeaderFloats + 7 * sourceBones; }
        /// <summary>Floats in an input buffer with the confidence tail for <paramref name="sourceBones"/> bones: 4 + 8S.</summary>
        public static int InputFloatCountWithConfidence(int sourceBones) { return HeaderFloats + 8 * sourceBones; }
        /// <summary>Offset of the confidence tail (S floats) in an input with tail flag 1: 4 + 7S.</summary>
        public static int InputConfidenceOffset(int sourceBones) { return HeaderFloats + 7 * sourceBones; }
        /// <summary>Floats in an output buffer for <paramref name="targetBones"/> bones: 4 + 4T + 5.</summary>
        public static int OutputFloatCount(int targetBones) { return HeaderFloats + 4 * targetBones + OutputTailFloats; }
        /// <summary>Offset of the first position float in the input.</summary>
        public static int InputPositionOffset(int sourceBones) { return HeaderFloats; }
        /// <summary>Offset of the first rotation float in the input.</summary>
        public static int InputRotationOffset(int sourceBones) { return HeaderFloats + 3 * sourceBones; }
        /// <summary>Offset of the hips position in the output.</summary>
        public static int OutputHipsPositionOffset(int targetBones) { return HeaderFloats + 4 * targetBones; }
        /// <summary>Offset of the hips scale in the output (the head scale follows it).</summary>
        public static int OutputScaleOffset(int targetBones) { return HeaderFloats + 4 * targetBones + 3; }

        /// <summary>Writes the input header into <paramref name="input"/> (length at least 4 + 7S).</summary>
        public static void WriteInputHeader(float[] input, int sourceBones, int frame)
        {
            input[InVersion] = Version;
            input[InBoneCount] = sourceBones;
            input[InFrame] = frame;
            input[InReserved] = 0f;
        }

        /// <summary>Stores the world pose of source bone <paramref name="bone"/> (Unity coordinates).</summary>
        public static void WriteSourceBone(float[] input, int sourceBones, int bone, Vector3 position, Quaternion rotation)
        {
            int p = HeaderFloats + 3 * bone;
            input[p] = position.x; input[p + 1] = position.y; input[p + 2] = position.z;
            int r = HeaderFloats + 3 * sourceBones + 4 * bone;
            input[r] = rotation.x; input[r + 1] = rotation.y; input[r + 2] = rotation.z; input[r + 3] = rotation.w;
        }

        /// <summary>
        /// Writes the confidence tail (S floats after the rotations; <paramref name="input"/> of length at least
        /// 4 + 8S) and sets the tail flag (input[3] = 1), after <see cref="WriteInputHeader"/>. A null or short
        /// <paramref name="confidence"/> gives 1 for the bones it lacks (seen). No allocation.
        /// </summary>
        public static void WriteConfidenceTail(float[] input, int sourceBones, float[] confidence)
        {
            int o = HeaderFloats + 7 * sourceBones;
            int have = confidence == null ? 0 : Math.Min(confidence.Length, sourceBones);
            for (int i = 0; i < have; i++) input[o + i] = confidence[i];
            for (int i = have; i < sourceBones; i++) input[o + i] = 1f;
            input[InTailFlag] = TailConfidence;
        }

        /// <summary>
        /// Copies <paramref name="floatCount"/> floats into the reused byte buffer (no allocation).
        /// Buffer.BlockCopy copies memory as is: every platform Unity ships on is little-endian, which the
        /// layout requires (checked once by <see cref="CheckEndianness"/>).
        /// </summary>
        public static void PackFloats(float[] floats, int floatCount, byte[] bytes)
        {
            if (bytes.Length < floatCount * 4) throw new ArgumentException("input bytes: need " + (floatCount * 4) + " bytes, have " + bytes.Length);
            Buffer.BlockCopy(floats, 0, bytes, 0, floatCount * 4);
        }

        /// <summary>
        /// Copies the output bytes into the reused float array and checks its header. Returns null when the
        /// output is usable, else a message naming the field and the expected value (the caller logs it once
        /// and keeps the last pose).
        /// </summary>
        public static string UnpackOutput(byte[] bytes, int byteCount, int targetBones, float[] output)
        {
            int expected = OutputFloatCount(targetBones);
            if (bytes == null) return "output: update returned no ArrayBuffer";
            if (byteCount != expected * 4) return "output length: expected " + (expected * 4) + " bytes (" + expected + " floats for " + targetBones + " target bones), got " + byteCount;
            if (output.Length < expected) throw new ArgumentException("output floats: need " + expected + ", have " + output.Length);
            Buffer.BlockCopy(bytes, 0, output, 0, byteCount);
            if ((int)output[OutVersion] != Version) return "output[0] layout version: expected " + Version + ", got " + output[OutVersion];
            if ((int)output[OutBoneCount] != targetBones) return "output[1] target bone count: expected " + targetBones + ", got " + output[OutBoneCount];
            return null;
        }

        /// <summary>Target local rotation of bone <paramref name="bone"/> from an unpacked output.</summary>
        public static Quaternion ReadTargetRotation(float[] output, int bone)
        {
            int r = HeaderFloats + 4 * bone;
            return new Quaternion(output[r], output[r + 1], output[r + 2], output[r + 3]);
        }

        /// <summary>Hips local position from an unpacked output.</summary>
        public static Vector3 ReadHipsPosition(float[] output, int targetBones)
        {
            int o = OutputHipsPositionOffset(targetBones);
            return new Vector3(output[o], output[o + 1], output[o + 2]);
        }

        /// <summary>Mirror of a position between Unity (left-handed) and the TS frame (right-handed): (x, y, z) -> (-x, y, z).</summary>
        public static Vector3 MirrorPosition(Vector3 p) { return new Vector3(-p.x, p.y, p.z); }

        /// <summary>Mirror of a rotation between Unity and the TS frame: (x, y, z, w) -> (x, -y, -z, w). Its own inverse.</summary>
        public static Quaternion MirrorRotation(Quaternion q) { return new Quaternion(q.x, -q.y, -q.z, q.w); }

        /// <summary>Throws on a big-endian platform (the layout is little-endian float32).</summary>
        public static void CheckEndianness()
        {
            if (!BitConverter.IsLittleEndian) throw new PlatformNotSupportedException("KindRetargeting: the bridge layout is little-endian float32; this platform is big-endian");
        }
    }
}
