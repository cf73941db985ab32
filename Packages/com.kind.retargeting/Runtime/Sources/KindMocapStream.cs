// The receiving end of the browser mocap stream (TsProject/src/mocap/STREAM.md, src/mocap/stream.ts), without
// Unity (System.* and KindJson only, so it also runs under plain Mono: TsProject/test/unity.mocapStream.mono.test.ts).
// KindWebSocketServer hands it every message of its SourcePath (/source) on the socket's receive thread;
// KindBrowserMocapSource takes the latest pose on Unity's main thread.
using System;
using System.Collections.Generic;

namespace KindRetargeting
{
    /// <summary>
    /// Parses the mocap page's messages: a JSON skeleton (<c>{"type":"mocap-skeleton","protocol":1,"id":..,
    /// "bones":[..],"parents":[..],"offsets":[..]}</c>; bones HumanBodyBones names, parents first, Hips the
    /// root, offsets = rest local translations in metres in the internal right-handed frame, rest rotations
    /// identity) and binary poses (little-endian, 44 + 21 N bytes: magic "KMP", version 1, uint32 skeleton id,
    /// uint32 frame number, uint32 flags, float64 frame time ms, float64 sent-at epoch ms, 3 float32 hips
    /// metres, 4N float32 local rotations x y z w, N float32 confidences, N uint8 states). The same checks as
    /// the TypeScript reader (readMocapPose): a bad message is counted, refused with a one-line reason
    /// (<see cref="LastRefusal"/>, and as <c>{"type":"refused","reason":..}</c> to the page, at most once a
    /// second per stream) and the stream goes on. A pose is decoded into preallocated arrays (no allocation
    /// per frame) and kept as the latest; <see cref="TryTakePose"/> copies it out on the main thread.
    /// Values stay in the internal frame (right-handed); the Unity source mirrors them.
    /// </summary>
    public sealed class KindMocapStream : IKindStreamSink
    {
        public const int Protocol = 1;
        public const int HeaderBytes = 44;
        /// <summary>Largest accepted |offset| or |hips| coordinate, metres.</summary>
        public const double MaxMetres = 100;
        /// <summary>A rotation whose norm is off 1 by more than this is refused.</summary>
        public const double NormTolerance = 1e-3;

        /// <summary>Bytes of a pose message for <paramref name="boneCount"/> bones.</summary>
        public static int PoseBytes(int boneCount) { return HeaderBytes + 21 * boneCount; }

        /// <summary>A parsed skeleton message (immutable once made).</summary>
        public sealed class Skeleton
        {
            public uint Id;
            public string[] Bones;
            public int[] Parents;
            /// <summary>Rest local translations, 3 per bone, metres, internal frame.</summary>
            public float[] Offsets;
        }

        readonly object gate = new object();
        volatile Skeleton skeleton;
        // decode scratch (receive thread) and the latest pose (under gate), sized for the skeleton
        float[] scratchRot = new float[0], scratchConf = new float[0], latestRot = new float[0], latestConf = new float[0];
        byte[] scratchState = new byte[0], latestState = new byte[0];
        readonly float[] scratchHips = new float[3], latestHips = new float[3];
        uint latestFrame, latestFlags;
        double latestTime, latestSent;
        long poseVersion, skeletonStart;
        long lastFrameNumber = -1;
        long frames, malformed, lost, skeletons;
        string lastRefusal = "";
        DateTime lastReply = DateTime.MinValue;

        /// <summary>The current skeleton, or null before the first skeleton message.</summary>
        public Skeleton CurrentSkeleton { get { return skeleton; } }
        /// <summary>Poses accepted.</summary>
        public long Frames { get { return System.Threading.Interlocked.Read(ref frames); } }
        /// <summary>Messages refused.</summary>
        public long Malformed { get { return System.Threading.Interlocked.Read(ref malformed); } }
        /// <summary>Frames lost on the way (gaps in the page's frame numbers within one skeleton).</summary>
        public long Lost { get { return System.Threading.Interlocked.Read(ref lost); } }
        /// <summary>Skeleton messages accepted.</summary>
        public long Skeletons { get { return System.Threading.Interlocked.Read(ref skeletons); } }
        /// <summary>Whether the page found a person in the latest pose (flags bit 0).</summary>
        public bool LatestPersonFound { get { lock (gate) return (latestFlags & 1) != 0; } }
        /// <summary>The last refusal's reason, or "".</summary>
        public string LastRefusal { get { lock (gate) return lastRefusal; } }

        string Refuse(string reason)
        {
            System.Threading.Interlocked.Increment(ref malformed);
            lock (gate)
            {
                lastRefusal = reason;
                DateTime now = DateTime.UtcNow;
                if ((now - lastReply).TotalSeconds < 1) return null;
                lastReply = now;
            }
            return "{\"type\":\"refused\",\"reason\":" + KindJson.Quote(reason) + "}";
        }

        /// <summary>A skeleton message: parsed, checked, made current (a pose of an older id is refused from now on).</summary>
        public string OnStreamText(string clientId, string text)
        {
            Skeleton s;
            string why = ParseSkeleton(text, out s);
            if (why != null) return Refuse(why);
            int n = s.Bones.Length;
            lock (gate)
            {
                scratchRot = new float[4 * n];
                scratchConf = new float[n];
                scratchState = new byte[n];
                latestRot = new float[4 * n];
                latestConf = new float[n];
                latestState = new byte[n];
                lastFrameNumber = -1;
                skeletonStart = poseVersion;
                skeleton = s;
            }
            System.Threading.Interlocked.Increment(ref skeletons);
            return "{\"type\":\"skeleton-ok\",\"id\":" + s.Id + "}";
        }

        /// <summary>Parses and checks a skeleton message; null, or why it is refused (the TypeScript reader's wording).</summary>
        public static string ParseSkeleton(string text, out Skeleton result)
        {
            result = null;
            object m;
            try { m = KindJson.Parse(text); }
            catch (FormatException) { return "mocap skeleton: not JSON"; }
            if (!(m is Dictionary<string, object>)) return "mocap skeleton: need a JSON object";
            if (!"mocap-skeleton".Equals(KindJson.Member(m, "type"))) return "mocap skeleton.type: expected \"mocap-skeleton\"";
            object p = KindJson.Member(m, "protocol");
            if (!(p is double) || (double)p != Protocol) return "mocap skeleton.protocol: this receiver reads " + Protocol;
            object idv = KindJson.Member(m, "id");
            double id = idv is double ? (double)idv : -1;
            if (!(id >= 1 && id <= uint.MaxValue && Math.Floor(id) == id)) return "mocap skeleton.id: need an integer 1..4294967295";
            var bones = KindJson.Member(m, "bones") as List<object>;
            if (bones == null || bones.Count < 1 || bones.Count > 55) return "mocap skeleton.bones: need 1..55 HumanBodyBones names";
            int n = bones.Count;
            var names = new string[n];
            var seen = new HashSet<string>();
            for (int i = 0; i < n; i++)
            {
                names[i] = bones[i] as string;
                if (string.IsNullOrEmpty(names[i])) return "mocap skeleton.bones[" + i + "]: need a HumanBodyBones name";
                if (!seen.Add(names[i])) return "mocap skeleton.bones[" + i + "]: " + names[i] + " repeats";
            }
            if (names[0] != "Hips") return "mocap skeleton.bones[0]: " + names[0] + ", the root must be Hips";
            var parents = KindJson.Member(m, "parents") as List<object>;
            if (parents == null || parents.Count != n) return "mocap skeleton.parents: need " + n + " parent indices";
            var par = new int[n];
            for (int i = 0; i < n; i++)
            {
                double v = parents[i] is double ? (double)parents[i] : double.NaN;
                bool ok = i == 0 ? v == -1 : (v >= 0 && v < i && Math.Floor(v) == v);
                if (!ok) return "mocap skeleton.parents[" + i + "]: need " + (i == 0 ? "-1 (the root)" : "an index 0.." + (i - 1) + " (parents first)");
                par[i] = (int)v;
            }
            var offsets = KindJson.Member(m, "offsets") as List<object>;
            if (offsets == null || offsets.Count != 3 * n) return "mocap skeleton.offsets: need " + 3 * n + " numbers (x, y, z per bone, metres)";
            var off = new float[3 * n];
            for (int i = 0; i < 3 * n; i++)
            {
                double v = offsets[i] is double ? (double)offsets[i] : double.NaN;
                if (!(Math.Abs(v) <= MaxMetres)) return "mocap skeleton.offsets[" + i + "]: need a finite number of metres within " + MaxMetres;
                off[i] = (float)v;
            }
            result = new Skeleton { Id = (uint)id, Bones = names, Parents = par, Offsets = off };
            return null;
        }

        /// <summary>A pose message: checked and decoded into the scratch arrays, then made the latest pose.
        /// Allocates nothing when good.</summary>
        public string OnStreamBinary(string clientId, byte[] b, int count)
        {
            Skeleton s = skeleton;
            if (s == null) return Refuse("pose message before any mocap-skeleton message");
            int n = s.Bones.Length;
            int want = PoseBytes(n);
            if (count != want) return Refuse("pose message of " + count + " bytes, expected " + want + " for " + n + " bones");
            if (b[0] != 0x4B || b[1] != 0x4D || b[2] != 0x50) return Refuse("pose message: bad magic (not KMP)");
            if (b[3] != Protocol) return Refuse("pose message: protocol " + b[3] + ", expected " + Protocol);
            uint sid = BitConverter.ToUInt32(b, 4);
            if (sid != s.Id) return Refuse("pose message of skeleton " + sid + ", the current skeleton is " + s.Id);
            double time = BitConverter.ToDouble(b, 16);
            double sent = BitConverter.ToDouble(b, 24);
            if (double.IsNaN(time) || double.IsInfinity(time) || double.IsNaN(sent) || double.IsInfinity(sent))
                return Refuse("pose message: non-finite time");
            lock (gate)
            {
                if (skeleton != s || scratchRot.Length != 4 * n) return Refuse("pose message of skeleton " + sid + ", the current skeleton changed");
                for (int c = 0; c < 3; c++)
                {
                    float v = BitConverter.ToSingle(b, 32 + 4 * c);
                    if (!(Math.Abs(v) <= MaxMetres)) return Refuse("pose message: hips coordinate " + v + " is not within " + MaxMetres + " m");
                    scratchHips[c] = v;
                }
                for (int i = 0; i < n; i++)
                {
                    double norm = 0;
                    for (int c = 0; c < 4; c++)
                    {
                        float v = BitConverter.ToSingle(b, 44 + 16 * i + 4 * c);
                        scratchRot[4 * i + c] = v;
                        norm += (double)v * v;
                    }
                    if (!(Math.Abs(Math.Sqrt(norm) - 1) <= NormTolerance)) return Refuse("pose message: bone " + i + " rotation is not a unit quaternion");
                }
                int co = 44 + 16 * n;
                for (int i = 0; i < n; i++)
                {
                    float v = BitConverter.ToSingle(b, co + 4 * i);
                    if (!(v >= 0 && v <= 1)) return Refuse("pose message: bone " + i + " confidence " + v + " is outside [0, 1]");
                    scratchConf[i] = v;
                }
                int so = 44 + 20 * n;
                for (int i = 0; i < n; i++)
                {
                    if (b[so + i] > 2) return Refuse("pose message: bone " + i + " state " + b[so + i] + " is not 0, 1 or 2");
                    scratchState[i] = b[so + i];
                }
                uint frame = BitConverter.ToUInt32(b, 8);
                if (lastFrameNumber >= 0 && frame > lastFrameNumber + 1) System.Threading.Interlocked.Add(ref lost, frame - lastFrameNumber - 1);
                lastFrameNumber = frame;
                Array.Copy(scratchRot, latestRot, scratchRot.Length);
                Array.Copy(scratchConf, latestConf, n);
                Array.Copy(scratchState, latestState, n);
                Array.Copy(scratchHips, latestHips, 3);
                latestFrame = frame;
                latestFlags = BitConverter.ToUInt32(b, 12);
                latestTime = time;
                latestSent = sent;
                poseVersion++;
                System.Threading.Interlocked.Increment(ref frames);
            }
            return null;
        }

        /// <summary>
        /// Copies the latest pose of skeleton <paramref name="skeletonId"/> if it is newer than
        /// <paramref name="seen"/> (pass the value it returned last time; 0 at first): rotations 4N, hips 3,
        /// confidence N, states N (the caller's arrays, at least that long). False when there is nothing new
        /// or the skeleton changed. No allocation.
        /// </summary>
        public bool TryTakePose(uint skeletonId, ref long seen, float[] rotations, float[] hips, float[] confidence, byte[] states,
            out uint frameNumber, out double timeMs, out double sentAtMs)
        {
            lock (gate)
            {
                frameNumber = latestFrame;
                timeMs = latestTime;
                sentAtMs = latestSent;
                Skeleton s = skeleton;
                if (s == null || s.Id != skeletonId || poseVersion == seen || poseVersion == skeletonStart) return false;
                seen = poseVersion;
                Array.Copy(latestRot, rotations, latestRot.Length);
                Array.Copy(latestHips, hips, 3);
                Array.Copy(latestConf, confidence, latestConf.Length);
                Array.Copy(latestState, states, latestState.Length);
                return true;
            }
        }
    }
}
