// A whole take read once from the bundle's defaultTake() JSON (TsProject/src/unity/defaultTake.ts): the
// embedded default walk that KindDefaultTakeSource plays on a code-made skeleton. Unity-free (System and
// KindJson only), so the tests compile and run it under plain Mono on the real bundle's JSON
// (TsProject/test/unity.codeHumanoid.mono.test.ts).
using System;
using System.Collections.Generic;

namespace KindRetargeting
{
    /// <summary>
    /// A skeleton and its frames, Unity coordinates (metres; rotations x y z w), as defaultTake() gives them.
    /// Parsed once at set-up (allocates); sampling a frame (<see cref="FrameAt"/>) allocates nothing.
    /// </summary>
    public sealed class KindTake
    {
        /// <summary>The clip's name (e.g. "default-walk").</summary>
        public string Name;
        /// <summary>Number of frames (at least 1).</summary>
        public int FrameCount;
        /// <summary>Seconds per frame (positive).</summary>
        public float FrameTime;
        /// <summary>Bone names, length n.</summary>
        public string[] Names;
        /// <summary>Parent index per bone, -1 for the root; parents come before children.</summary>
        public int[] Parents;
        /// <summary>Bone index per HumanBodyBones value (55 entries), -1 where missing.</summary>
        public int[] Humanoid;
        /// <summary>Rest local positions, 3n floats, metres.</summary>
        public float[] RestLocalPositions;
        /// <summary>Rest local rotations, 4n floats (x y z w).</summary>
        public float[] RestLocalRotations;
        /// <summary>Local rotations per frame, FrameCount * 4n floats, frame-major (frame f, bone i at (f * n + i) * 4).</summary>
        public float[] Rotations;
        /// <summary>The root bone's local position per frame, FrameCount * 3 floats, metres.</summary>
        public float[] HipsPositions;

        /// <summary>Number of bones n.</summary>
        public int BoneCount { get { return Names.Length; } }

        /// <summary>Length of one loop in seconds (FrameCount * FrameTime).</summary>
        public float Duration { get { return FrameCount * FrameTime; } }

        /// <summary>
        /// Parses the JSON of the bundle's defaultTake(). Throws FormatException naming the field when a member is
        /// missing, has the wrong type or length, or a parent comes after its child.
        /// </summary>
        public static KindTake Parse(string json)
        {
            object root = KindJson.Parse(json);
            if (!(root is Dictionary<string, object>)) throw new FormatException("take: not a JSON object");
            var t = new KindTake();
            t.Name = KindJson.Member(root, "name") as string ?? "take";
            t.FrameCount = (int)Number(root, "frameCount");
            t.FrameTime = (float)Number(root, "frameTime");
            if (t.FrameCount < 1) throw new FormatException("take: frameCount must be at least 1, got " + t.FrameCount);
            if (!(t.FrameTime > 0f)) throw new FormatException("take: frameTime must be positive, got " + t.FrameTime);
            List<object> names = List(root, "names");
            int n = names.Count;
            if (n < 1) throw new FormatException("take: names is empty");
            t.Names = new string[n];
            for (int i = 0; i < n; i++)
            {
                t.Names[i] = names[i] as string;
                if (t.Names[i] == null) throw new FormatException("take: names[" + i + "] is not a string");
            }
            t.Parents = Ints(root, "parents", n);
            for (int i = 0; i < n; i++)
                if (t.Parents[i] >= i || t.Parents[i] < -1) throw new FormatException("take: parents[" + i + "] = " + t.Parents[i] + " (parents must come first, -1 for the root)");
            t.Humanoid = Ints(root, "humanoid", 55);
            for (int h = 0; h < 55; h++)
                if (t.Humanoid[h] < -1 || t.Humanoid[h] >= n) throw new FormatException("take: humanoid[" + h + "] = " + t.Humanoid[h] + " is not a bone index");
            if (t.Humanoid[0] < 0) throw new FormatException("take: no Hips bone (humanoid[0] = -1)");
            t.RestLocalPositions = Floats(root, "restLocalPositions", 3 * n);
            t.RestLocalRotations = Floats(root, "restLocalRotations", 4 * n);
            t.Rotations = Floats(root, "rotations", t.FrameCount * 4 * n);
            t.HipsPositions = Floats(root, "hipsPositions", t.FrameCount * 3);
            return t;
        }

        /// <summary>The frame shown at <paramref name="seconds"/> since the start, looping (floor(seconds / FrameTime) mod FrameCount; negative times wrap too).</summary>
        public int FrameAt(double seconds)
        {
            double f = Math.Floor(seconds / FrameTime);
            long k = (long)(f % FrameCount);
            if (k < 0) k += FrameCount;
            return (int)k;
        }

        /// <summary>
        /// Walk on the spot: removes from the hips' horizontal (x, z) positions the straight line from the first
        /// frame to the last, so the take loops without jumping back (the height and the sway stay). Changes
        /// <see cref="HipsPositions"/> in place.
        /// </summary>
        public void RemoveTravel()
        {
            int last = FrameCount - 1;
            if (last < 1) return;
            float dx = HipsPositions[3 * last] - HipsPositions[0];
            float dz = HipsPositions[3 * last + 2] - HipsPositions[2];
            for (int f = 0; f <= last; f++)
            {
                float t = (float)f / last;
                HipsPositions[3 * f] -= dx * t;
                HipsPositions[3 * f + 2] -= dz * t;
            }
        }

        static double Number(object root, string key)
        {
            object v = KindJson.Member(root, key);
            if (!(v is double)) throw new FormatException("take: " + key + " is not a number");
            return (double)v;
        }

        static List<object> List(object root, string key)
        {
            var a = KindJson.Member(root, key) as List<object>;
            if (a == null) throw new FormatException("take: " + key + " is not an array");
            return a;
        }

        static int[] Ints(object root, string key, int length)
        {
            List<object> a = List(root, key);
            if (a.Count != length) throw new FormatException("take: " + key + " has " + a.Count + " entries, expected " + length);
            var r = new int[length];
            for (int i = 0; i < length; i++)
            {
                if (!(a[i] is double) || (double)a[i] != Math.Floor((double)a[i])) throw new FormatException("take: " + key + "[" + i + "] is not an integer");
                r[i] = (int)(double)a[i];
            }
            return r;
        }

        static float[] Floats(object root, string key, int length)
        {
            List<object> a = List(root, key);
            if (a.Count != length) throw new FormatException("take: " + key + " has " + a.Count + " entries, expected " + length);
            var r = new float[length];
            for (int i = 0; i < length; i++)
            {
                if (!(a[i] is double)) throw new FormatException("take: " + key + "[" + i + "] is not a number");
                r[i] = (float)(double)a[i];
            }
            return r;
        }
    }
}
