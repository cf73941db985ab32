// The humanoids the sample scene makes in code (issue 21 part 6: a first scene with nothing but the
// package): bone names, parents and rest offsets per proportion set, as plain data. Unity-free (System
// only), so the tests compile and check it under plain Mono (TsProject/test/unity.codeHumanoid.mono.test.ts);
// KindCodeHumanoid.cs turns it into transforms, an Avatar (AvatarBuilder.BuildHumanAvatar) and an Animator.
using System;
using System.Collections.Generic;

namespace KindRetargeting
{
    /// <summary>One bone of a code-made humanoid: a HumanBodyBones bone at a rest offset from its parent.</summary>
    public sealed class KindHumanoidBone
    {
        /// <summary>The transform's name: the HumanBodyBones enum name (e.g. "LeftUpperLeg").</summary>
        public readonly string Name;
        /// <summary>The HumanBodyBones value (0 Hips ... 54 UpperChest).</summary>
        public readonly int HumanBodyBone;
        /// <summary>Index of the parent in the bone list (parents come first), -1 for Hips (a child of the avatar's root).</summary>
        public readonly int Parent;
        /// <summary>Rest local position relative to the parent, metres, Unity axes (Y up, the character faces +Z, its left is -X); all rest rotations are identity (a T-pose).</summary>
        public readonly float X, Y, Z;
        /// <summary>Where the bone's visible segment ends when it has no child bone (head top, hand tip, toe tip), local metres; zero for bones with children.</summary>
        public readonly float TipX, TipY, TipZ;
        /// <summary>Radius of the bone's visible capsule, metres.</summary>
        public readonly float Radius;

        public KindHumanoidBone(string name, int humanBodyBone, int parent, float x, float y, float z, float radius, float tipX = 0f, float tipY = 0f, float tipZ = 0f)
        {
            Name = name; HumanBodyBone = humanBodyBone; Parent = parent;
            X = x; Y = y; Z = z; Radius = radius; TipX = tipX; TipY = tipY; TipZ = tipZ;
        }

        /// <summary>Length of the rest offset from the parent, metres.</summary>
        public float Length { get { return (float)Math.Sqrt(X * X + Y * Y + Z * Z); } }
    }

    /// <summary>
    /// Segment lengths of a code-made humanoid in metres (a T-pose standing on the floor y = 0, facing +Z).
    /// <see cref="Bones"/> turns them into the bone list; <see cref="Adult"/>, <see cref="Tall"/> and
    /// <see cref="Child"/> are the sample scene's three sets.
    /// </summary>
    [Serializable]
    public sealed class KindHumanoidProportions
    {
        /// <summary>Name of the set (used in the GameObject's and the Avatar's names).</summary>
        public string Name = "Adult";
        /// <summary>Hips bone down to the hip joints (the upper legs' height below it).</summary>
        public float HipDrop = 0.08f;
        /// <summary>Half the distance between the hip joints.</summary>
        public float HipHalfWidth = 0.09f;
        /// <summary>Hip joint to knee.</summary>
        public float UpperLeg = 0.44f;
        /// <summary>Knee to ankle (the foot bone).</summary>
        public float LowerLeg = 0.43f;
        /// <summary>Height of the ankle above the floor.</summary>
        public float AnkleHeight = 0.08f;
        /// <summary>Ankle to the ball of the foot (the toes bone), forward.</summary>
        public float FootLength = 0.13f;
        /// <summary>Height of the ball of the foot above the floor.</summary>
        public float ToeHeight = 0.02f;
        /// <summary>Ball of the foot to the toe tip.</summary>
        public float ToeLength = 0.06f;
        /// <summary>Hips to spine, spine to chest, chest to neck (up).</summary>
        public float Spine = 0.12f, Chest = 0.20f, ChestToNeck = 0.16f;
        /// <summary>Neck to head bone, head bone to the top of the head.</summary>
        public float Neck = 0.10f, Head = 0.20f;
        /// <summary>Chest to the shoulder (clavicle) bone: up and to the side.</summary>
        public float ShoulderUp = 0.14f, ShoulderSide = 0.03f;
        /// <summary>Clavicle to the upper arm (shoulder joint), sideways.</summary>
        public float Clavicle = 0.13f;
        /// <summary>Shoulder joint to elbow, elbow to wrist, wrist to finger tip (all sideways in the T-pose).</summary>
        public float UpperArm = 0.28f, LowerArm = 0.26f, Hand = 0.18f;
        /// <summary>Limb capsule radius; the torso's is twice it.</summary>
        public float LimbRadius = 0.045f;

        /// <summary>About 1.8 m tall.</summary>
        public static KindHumanoidProportions Adult() { return new KindHumanoidProportions(); }

        /// <summary>About 2.0 m tall, long legs and arms, narrow.</summary>
        public static KindHumanoidProportions Tall()
        {
            return new KindHumanoidProportions
            {
                Name = "Tall", HipDrop = 0.09f, HipHalfWidth = 0.085f, UpperLeg = 0.54f, LowerLeg = 0.53f, AnkleHeight = 0.09f,
                FootLength = 0.15f, ToeHeight = 0.02f, ToeLength = 0.07f, Spine = 0.12f, Chest = 0.21f, ChestToNeck = 0.17f,
                Neck = 0.11f, Head = 0.21f, ShoulderUp = 0.15f, ShoulderSide = 0.03f, Clavicle = 0.13f,
                UpperArm = 0.33f, LowerArm = 0.30f, Hand = 0.20f, LimbRadius = 0.04f,
            };
        }

        /// <summary>About 1.15 m tall, short legs and a big head (a child's proportions).</summary>
        public static KindHumanoidProportions Child()
        {
            return new KindHumanoidProportions
            {
                Name = "Child", HipDrop = 0.05f, HipHalfWidth = 0.065f, UpperLeg = 0.25f, LowerLeg = 0.24f, AnkleHeight = 0.05f,
                FootLength = 0.09f, ToeHeight = 0.015f, ToeLength = 0.04f, Spine = 0.08f, Chest = 0.13f, ChestToNeck = 0.11f,
                Neck = 0.06f, Head = 0.20f, ShoulderUp = 0.10f, ShoulderSide = 0.02f, Clavicle = 0.08f,
                UpperArm = 0.17f, LowerArm = 0.15f, Hand = 0.11f, LimbRadius = 0.035f,
            };
        }

        /// <summary>The three sets of the sample scene: adult, tall, child.</summary>
        public static KindHumanoidProportions[] SampleSets() { return new[] { Adult(), Tall(), Child() }; }

        /// <summary>Height of the hips bone above the floor in the rest pose: hip drop + upper leg + lower leg + ankle height (legs straight down).</summary>
        public float HipsHeight { get { return HipDrop + UpperLeg + LowerLeg + AnkleHeight; } }

        /// <summary>Height of the top of the head above the floor in the rest pose.</summary>
        public float Height { get { return HipsHeight + Spine + Chest + ChestToNeck + Neck + Head; } }

        /// <summary>HumanBodyBones values (Unity's enum, UnityEngine.HumanBodyBones) of the bones a code-made humanoid has.</summary>
        public const int Hips = 0, LeftUpperLeg = 1, RightUpperLeg = 2, LeftLowerLeg = 3, RightLowerLeg = 4, LeftFoot = 5, RightFoot = 6,
            SpineBone = 7, ChestBone = 8, NeckBone = 9, HeadBone = 10, LeftShoulder = 11, RightShoulder = 12, LeftUpperArm = 13,
            RightUpperArm = 14, LeftLowerArm = 15, RightLowerArm = 16, LeftHand = 17, RightHand = 18, LeftToes = 19, RightToes = 20;

        /// <summary>
        /// The bone list, parents before children: Hips (its local position is its height above the avatar's root,
        /// <see cref="HipsHeight"/>), Spine, Chest, Neck, Head, then per side (left first) Shoulder, UpperArm,
        /// LowerArm, Hand, then per side UpperLeg, LowerLeg, Foot, Toes. 21 bones, no fingers (optional in Unity's
        /// humanoid). Throws ArgumentException naming the field when a length is not positive (ToeHeight may be 0).
        /// </summary>
        public List<KindHumanoidBone> Bones()
        {
            Check("HipDrop", HipDrop); Check("HipHalfWidth", HipHalfWidth); Check("UpperLeg", UpperLeg); Check("LowerLeg", LowerLeg);
            Check("AnkleHeight", AnkleHeight); Check("FootLength", FootLength); Check("ToeLength", ToeLength); Check("Spine", Spine);
            Check("Chest", Chest); Check("ChestToNeck", ChestToNeck); Check("Neck", Neck); Check("Head", Head);
            Check("ShoulderUp", ShoulderUp); Check("ShoulderSide", ShoulderSide); Check("Clavicle", Clavicle); Check("UpperArm", UpperArm);
            Check("LowerArm", LowerArm); Check("Hand", Hand); Check("LimbRadius", LimbRadius);
            if (!(ToeHeight >= 0f && ToeHeight < AnkleHeight)) throw new ArgumentException("KindHumanoidProportions '" + Name + "': ToeHeight must be in [0, AnkleHeight), got " + ToeHeight);

            float r = LimbRadius;
            var b = new List<KindHumanoidBone>(21);
            b.Add(new KindHumanoidBone("Hips", Hips, -1, 0f, HipsHeight, 0f, 2f * r));
            b.Add(new KindHumanoidBone("Spine", SpineBone, 0, 0f, Spine, 0f, 2f * r));
            b.Add(new KindHumanoidBone("Chest", ChestBone, 1, 0f, Chest, 0f, 2.2f * r));
            b.Add(new KindHumanoidBone("Neck", NeckBone, 2, 0f, ChestToNeck, 0f, 0.9f * r));
            b.Add(new KindHumanoidBone("Head", HeadBone, 3, 0f, Neck, 0f, 0.45f * Head, 0f, Head, 0f));
            for (int side = 0; side < 2; side++)
            {
                float s = side == 0 ? -1f : 1f; // Unity: the character's left is -X
                string p = side == 0 ? "Left" : "Right";
                int shoulder = b.Count;
                b.Add(new KindHumanoidBone(p + "Shoulder", side == 0 ? LeftShoulder : RightShoulder, 2, s * ShoulderSide, ShoulderUp, 0f, r));
                b.Add(new KindHumanoidBone(p + "UpperArm", side == 0 ? LeftUpperArm : RightUpperArm, shoulder, s * Clavicle, 0f, 0f, r));
                b.Add(new KindHumanoidBone(p + "LowerArm", side == 0 ? LeftLowerArm : RightLowerArm, shoulder + 1, s * UpperArm, 0f, 0f, 0.85f * r));
                b.Add(new KindHumanoidBone(p + "Hand", side == 0 ? LeftHand : RightHand, shoulder + 2, s * LowerArm, 0f, 0f, 0.7f * r, s * Hand, 0f, 0f));
            }
            for (int side = 0; side < 2; side++)
            {
                float s = side == 0 ? -1f : 1f;
                string p = side == 0 ? "Left" : "Right";
                int upper = b.Count;
                b.Add(new KindHumanoidBone(p + "UpperLeg", side == 0 ? LeftUpperLeg : RightUpperLeg, 0, s * HipHalfWidth, -HipDrop, 0f, 1.3f * r));
                b.Add(new KindHumanoidBone(p + "LowerLeg", side == 0 ? LeftLowerLeg : RightLowerLeg, upper, 0f, -UpperLeg, 0f, 1.1f * r));
                b.Add(new KindHumanoidBone(p + "Foot", side == 0 ? LeftFoot : RightFoot, upper + 1, 0f, -LowerLeg, 0f, 0.9f * r));
                b.Add(new KindHumanoidBone(p + "Toes", side == 0 ? LeftToes : RightToes, upper + 2, 0f, ToeHeight - AnkleHeight, FootLength, 0.7f * r, 0f, 0f, ToeLength));
            }
            return b;
        }

        void Check(string field, float v)
        {
            if (!(v > 0f) || float.IsInfinity(v)) throw new ArgumentException("KindHumanoidProportions '" + Name + "': " + field + " must be a positive length in metres, got " + v);
        }

        /// <summary>
        /// Rest world positions of <paramref name="bones"/> relative to the avatar's root (identity rest rotations:
        /// the sum of the offsets up the chain), 3 floats per bone, metres.
        /// </summary>
        public static float[] RestPositions(IList<KindHumanoidBone> bones)
        {
            var w = new float[3 * bones.Count];
            for (int i = 0; i < bones.Count; i++)
            {
                KindHumanoidBone bone = bones[i];
                int p = bone.Parent;
                if (p >= i) throw new ArgumentException("bone " + i + " '" + bone.Name + "' comes before its parent " + p);
                float px = p < 0 ? 0f : w[3 * p], py = p < 0 ? 0f : w[3 * p + 1], pz = p < 0 ? 0f : w[3 * p + 2];
                w[3 * i] = px + bone.X; w[3 * i + 1] = py + bone.Y; w[3 * i + 2] = pz + bone.Z;
            }
            return w;
        }
    }
}
