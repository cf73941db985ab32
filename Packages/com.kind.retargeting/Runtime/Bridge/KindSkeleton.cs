// Builds the setup JSON of createHub (package README "Setup JSON"): for the source and the target, the
// transform names, parent indices (parents[i] < i, -1 root), the HumanBodyBones map (55 entries, Unity's
// enum order, -1 missing) and the rest local positions (3n) / rotations (4n, x y z w) in Unity
// coordinates. Rest data crosses once, here; per frame only the flat buffers cross.
using System;
using System.Collections.Generic;
using System.Text;
using UnityEngine;

namespace KindRetargeting
{
    /// <summary>Skeleton description helpers for the setup JSON.</summary>
    public static class KindSkeleton
    {
        /// <summary>Every transform below <paramref name="root"/> (root excluded), depth first, parents before children.</summary>
        public static List<Transform> CollectBelow(Transform root)
        {
            var list = new List<Transform>();
            for (int i = 0; i < root.childCount; i++) Collect(root.GetChild(i), list);
            return list;
        }

        static void Collect(Transform t, List<Transform> list)
        {
            list.Add(t);
            for (int i = 0; i < t.childCount; i++) Collect(t.GetChild(i), list);
        }

        /// <summary>Index into <paramref name="bones"/> per HumanBodyBones (55 entries), -1 where the Avatar has no bone or it is not in the list.</summary>
        public static int[] HumanoidMap(Animator animator, IList<Transform> bones)
        {
            var map = new int[KindBridgeLayout.HumanBoneCount];
            for (int h = 0; h < map.Length; h++)
            {
                Transform t = animator.GetBoneTransform((HumanBodyBones)h);
                map[h] = t == null ? -1 : bones.IndexOf(t);
            }
            return map;
        }

        /// <summary>Parent index per bone (-1 when the parent is not in the list). Throws when a parent comes after its child.</summary>
        public static int[] Parents(IList<Transform> bones, string what)
        {
            var parents = new int[bones.Count];
            for (int i = 0; i < bones.Count; i++)
            {
                Transform p = bones[i].parent;
                int pi = p == null ? -1 : bones.IndexOf(p);
                if (pi >= i) throw new ArgumentException(what + ": bone " + i + " '" + bones[i].name + "' comes before its parent '" + p.name + "' (parents must come first)");
                parents[i] = pi;
            }
            return parents;
        }

        /// <summary>Appends one skeleton object of the setup JSON, using the transforms' current local pose as rest pose.</summary>
        public static void AppendSkeleton(StringBuilder sb, IList<Transform> bones, int[] humanoid, string what)
        {
            AppendSkeleton(sb, bones, humanoid, what, false);
        }

        /// <summary>
        /// As above; <paramref name="mocap"/> true adds <c>"mocap":true</c> (a source that is the webcam mocap
        /// stream, <see cref="IKindConfidenceSource"/>: the hub runs through the bundle's MocapHubDriver).
        /// </summary>
        public static void AppendSkeleton(StringBuilder sb, IList<Transform> bones, int[] humanoid, string what, bool mocap)
        {
            if (humanoid == null || humanoid.Length != KindBridgeLayout.HumanBoneCount)
                throw new ArgumentException(what + ": humanoid map must have " + KindBridgeLayout.HumanBoneCount + " entries");
            if (humanoid[(int)HumanBodyBones.Hips] < 0) throw new ArgumentException(what + ": no Hips bone");
            int[] parents = Parents(bones, what);
            sb.Append("{\"names\":[");
            for (int i = 0; i < bones.Count; i++) { if (i > 0) sb.Append(','); KindJson.AppendString(sb, bones[i].name); }
            sb.Append("],\"parents\":[");
            for (int i = 0; i < parents.Length; i++) { if (i > 0) sb.Append(','); sb.Append(parents[i]); }
            sb.Append("],\"humanoid\":[");
            for (int i = 0; i < humanoid.Length; i++) { if (i > 0) sb.Append(','); sb.Append(humanoid[i]); }
            sb.Append("],\"restLocalPositions\":[");
            for (int i = 0; i < bones.Count; i++)
            {
                Vector3 p = bones[i].localPosition;
                if (i > 0) sb.Append(',');
                KindJson.AppendNumber(sb, p.x); sb.Append(','); KindJson.AppendNumber(sb, p.y); sb.Append(','); KindJson.AppendNumber(sb, p.z);
            }
            sb.Append("],\"restLocalRotations\":[");
            for (int i = 0; i < bones.Count; i++)
            {
                Quaternion q = bones[i].localRotation;
                if (i > 0) sb.Append(',');
                KindJson.AppendNumber(sb, q.x); sb.Append(','); KindJson.AppendNumber(sb, q.y); sb.Append(',');
                KindJson.AppendNumber(sb, q.z); sb.Append(','); KindJson.AppendNumber(sb, q.w);
            }
            sb.Append(mocap ? "],\"mocap\":true}" : "]}");
        }

        /// <summary>
        /// The whole setup JSON: {"layout":1,"name","source","target","options"}. <paramref name="options"/> is
        /// raw JSON (an object) or null. A source that is an <see cref="IKindConfidenceSource"/> gets
        /// <c>"mocap":true</c> (every other setup is as before, byte for byte).
        /// </summary>
        public static string Setup(string name, IKindPoseSource source, IList<Transform> targetBones, int[] targetHumanoid, string options)
        {
            var sb = new StringBuilder(4096);
            sb.Append("{\"layout\":").Append(KindBridgeLayout.Version).Append(",\"name\":");
            KindJson.AppendString(sb, name);
            sb.Append(",\"source\":");
            AppendSkeleton(sb, source.Bones, source.Humanoid, "source '" + source.SourceName + "'", source is IKindConfidenceSource);
            sb.Append(",\"target\":");
            AppendSkeleton(sb, targetBones, targetHumanoid, "target '" + name + "'");
            if (!string.IsNullOrEmpty(options)) sb.Append(",\"options\":").Append(options);
            sb.Append('}');
            return sb.ToString();
        }
    }
}
