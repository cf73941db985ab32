// The bridge's per-frame C# cost under Mono, on the REAL PuerTS 2.2.3 C# runtime (reflection JsEnv) with
// the package's KindBridge, KindBridgeLayout and KindResultBuffer compiled unchanged, over fake_puerts.c
// (a stand-in for the native plugin: no JavaScript runs; see its header). Built and run by
// tools/puerts-alloc.mjs. Not part of the package.
//
// Each avatar-frame does what KindAvatarDriver.Step does between reading the Transforms and applying the
// pose: the input header and one WriteSourceBone per source bone into the reused float[], PackFloats into
// the reused byte[], one update call (KindBridge.UpdateReused, the path KindRuntime.UpdateHub takes),
// UnpackOutput into the reused float[], and the JsEnv's Tick (once per frame in KindRuntime).
// Allocation is GC.GetAllocatedBytesForCurrentThread() over the measured frames, after a warm-up.
//
// Usage: mono AllocHarness.exe <frames> <sourceBones> <targetBones>
// Prints one line per fact:
//   R <mode> <frames> <bytes> <bytesPerFrame>   mode: puerts-default (PuerTS's own ArrayBuffer getter),
//                                               kind (KindResultBuffer), kind-after-reload (a new JsEnv)
//   C <check> ok | C <check> FAIL <why>
using System;
using System.Runtime.InteropServices;
using Puerts;
using UnityEngine;

namespace KindRetargeting.Harness
{
    sealed class NullLoader : ILoader
    {
        public bool FileExists(string filepath) { return true; }
        public string ReadFile(string filepath, out string debugpath) { debugpath = filepath; return ""; }
    }

    static class AllocHarness
    {
        [DllImport("puerts")] static extern void KindFake_SetUpdateResult(byte[] bytes, int length);
        [DllImport("puerts")] static extern long KindFake_UpdateCalls();
        [DllImport("puerts")] static extern int KindFake_LastInputLength();
        [DllImport("puerts")] static extern float KindFake_InputFloat(int i);

        static int failures;

        static void Check(string name, bool ok, string why)
        {
            if (ok) Console.WriteLine("C " + name + " ok");
            else { failures++; Console.WriteLine("C " + name + " FAIL " + why); }
        }

        static int Main(string[] args)
        {
            int frames = int.Parse(args[0]), sourceBones = int.Parse(args[1]), targetBones = int.Parse(args[2]);

            // The output a hub would return: layout header, status ok, T rotations, hips position, scales.
            float[] expected = new float[KindBridgeLayout.OutputFloatCount(targetBones)];
            expected[KindBridgeLayout.OutVersion] = KindBridgeLayout.Version;
            expected[KindBridgeLayout.OutBoneCount] = targetBones;
            expected[KindBridgeLayout.OutStatus] = KindBridgeLayout.StatusOk;
            for (int i = KindBridgeLayout.HeaderFloats; i < expected.Length; i++) expected[i] = (float)Math.Sin(i * 0.37);
            byte[] expectedBytes = new byte[expected.Length * 4];
            Buffer.BlockCopy(expected, 0, expectedBytes, 0, expectedBytes.Length);
            KindFake_SetUpdateResult(expectedBytes, expectedBytes.Length);

            var bridge = new KindBridge(new NullLoader(), -1);
            Check("bridge-bound", bridge.ApiVersion() == "fake-puerts" && bridge.LayoutVersion == KindBridgeLayout.Version && KindResultBuffer.Installed,
                "apiVersion " + bridge.ApiVersion() + ", layout " + bridge.LayoutVersion + ", installed " + KindResultBuffer.Installed);
            int handle = bridge.CreateHub("{}");
            Check("createHub", handle == 1, "handle " + handle);

            float[] input = new float[KindBridgeLayout.InputFloatCount(sourceBones)];
            byte[] inputBytes = new byte[input.Length * 4];
            var inputBuffer = new ArrayBuffer(inputBytes, inputBytes.Length);
            float[] output = new float[expected.Length];
            int frame = 0;
            double checksum = 0;

            // One avatar-frame; returns false (and records why) on a bad output.
            Func<bool> step = () =>
            {
                KindBridgeLayout.WriteInputHeader(input, sourceBones, frame);
                for (int b = 0; b < sourceBones; b++)
                {
                    float s = 0.001f * frame;
                    KindBridgeLayout.WriteSourceBone(input, sourceBones, b, new Vector3(b, s, -b), new Quaternion(0f, s, 0f, 1f));
                }
                frame++;
                KindBridgeLayout.PackFloats(input, input.Length, inputBytes);
                ArrayBuffer result = bridge.UpdateReused(handle, inputBuffer, 1f / 60f);
                string problem = KindBridgeLayout.UnpackOutput(result == null ? null : result.Bytes, result == null ? 0 : result.Count, targetBones, output);
                bridge.Tick();
                if (problem != null) { Console.WriteLine("C unpack FAIL " + problem); failures++; return false; }
                checksum += output[KindBridgeLayout.HeaderFloats] + output[output.Length - 1];
                return true;
            };

            Func<string, bool> measure = mode =>
            {
                for (int i = 0; i < 2000; i++) if (!step()) return false; // warm-up: JIT, first-call caches, buffer growth
                GC.Collect();
                long before = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 0; i < frames; i++) if (!step()) return false;
                long bytes = GC.GetAllocatedBytesForCurrentThread() - before;
                Console.WriteLine("R " + mode + " " + frames + " " + bytes + " " + ((double)bytes / frames).ToString("R", System.Globalization.CultureInfo.InvariantCulture));
                return true;
            };

            KindResultBuffer.Uninstall();
            measure("puerts-default");
            KindResultBuffer.Install();
            measure("kind");

            // What crossed: the last input as the native side received it, the last output as unpacked.
            bool same = true;
            for (int i = 0; i < expected.Length; i++) if (output[i] != expected[i]) { same = false; break; }
            Check("output-bytes", same, "unpacked output differs from the bytes update returned");
            Check("input-bytes", KindFake_LastInputLength() == inputBytes.Length && KindFake_InputFloat(KindBridgeLayout.InFrame) == frame - 1
                && KindFake_InputFloat(KindBridgeLayout.InBoneCount) == sourceBones,
                "native side got " + KindFake_LastInputLength() + " bytes, frame " + KindFake_InputFloat(KindBridgeLayout.InFrame) + " (expected " + (frame - 1) + ")");
            Check("update-calls", KindFake_UpdateCalls() == 2L * (frames + 2000), "update called " + KindFake_UpdateCalls() + " times");
            Check("capacity", KindResultBuffer.Capacity == expectedBytes.Length, "reused buffer " + KindResultBuffer.Capacity + " B for " + expectedBytes.Length + " B outputs");
            ArrayBuffer r1 = bridge.UpdateReused(handle, inputBuffer, 0f), r2 = bridge.UpdateReused(handle, inputBuffer, 0f);
            Check("reused-object", ReferenceEquals(r1, r2) && r1.Count == expectedBytes.Length, "two update results are different objects");

            // Other ArrayBuffer results (not armed; here another JS function of another JsEnv) stay PuerTS's own: fresh objects.
            var env2 = new JsEnv(new NullLoader(), -1);
            Func<ArrayBuffer> copy = env2.ExecuteModule<Func<ArrayBuffer>>("other.mjs", "outputCopy");
            ArrayBuffer c1 = copy(), c2 = copy();
            bool fresh = !ReferenceEquals(c1, c2) && !ReferenceEquals(c1, r1) && c1.Count == expectedBytes.Length && c1.Bytes.Length == expectedBytes.Length;
            for (int i = 0; fresh && i < expectedBytes.Length; i++) fresh = c1.Bytes[i] == expectedBytes[i] && c2.Bytes[i] == expectedBytes[i];
            Check("fallback-fresh", fresh, "an unarmed ArrayBuffer result was not a fresh copy of the returned bytes");
            ArrayBuffer plain = bridge.Update(handle, inputBuffer, 0f);
            Check("unarmed-update-fresh", !ReferenceEquals(plain, r1) && plain.Count == expectedBytes.Length, "KindBridge.Update outside UpdateReused returned the shared buffer");
            env2.Dispose();

            // Hot reload: a new JsEnv (KindRuntime creates a new KindBridge) and the old one disposed.
            var next = new KindBridge(new NullLoader(), -1);
            bridge.Dispose();
            bridge = next;
            measure("kind-after-reload");
            bridge.Dispose();
            Console.WriteLine("X checksum " + checksum.ToString("R", System.Globalization.CultureInfo.InvariantCulture));
            return failures == 0 ? 0 : 1;
        }
    }
}
