// Humanoids made in code (issue 21 part 6): the transforms of a KindHumanoidProportions set, a humanoid
// Avatar built from them (AvatarBuilder.BuildHumanAvatar, ScriptReference/AvatarBuilder.BuildHumanAvatar.html),
// an Animator with that Avatar, and capsules on the bones so they can be seen. Used by the sample scene
// (Tools > Kind Retargeting > Build Sample Scene) so it needs no model of the user's.
using System.Collections.Generic;
using UnityEngine;

namespace KindRetargeting
{
    /// <summary>Builds code-made humanoids and the capsules that show a skeleton.</summary>
    public static class KindCodeHumanoid
    {
        /// <summary>Name of the capsule/sphere GameObjects added under bones (they are not bones).</summary>
        public const string ShapeName = "(shape)";

        /// <summary>
        /// A new GameObject <paramref name="name"/> at <paramref name="position"/> (world, metres, rotation identity)
        /// holding the bones of <paramref name="proportions"/> (T-pose, facing +Z, feet on the GameObject's y), an
        /// Animator whose Avatar is built from them (no controller: a hub or pose transfer writes the pose), and,
        /// when <paramref name="withShapes"/>, capsules on the bones. The Avatar is named "&lt;name&gt; Avatar" and
        /// lives in memory: to keep it in a saved scene, save it as an asset (the sample scene builder does).
        /// Logs an error and returns the Animator without an Avatar when Unity finds the description invalid.
        /// </summary>
        public static Animator Create(KindHumanoidProportions proportions, string name, Vector3 position, bool withShapes = true)
        {
            List<KindHumanoidBone> spec = proportions.Bones();
            var root = new GameObject(name); // at the origin while the Avatar is built: its skeleton's root pose is identity
            var bones = new Transform[spec.Count];
            var human = new HumanBone[spec.Count];
            var skeleton = new SkeletonBone[spec.Count + 1];
            skeleton[0] = new SkeletonBone { name = name, position = Vector3.zero, rotation = Quaternion.identity, scale = Vector3.one };
            for (int i = 0; i < spec.Count; i++)
            {
                KindHumanoidBone b = spec[i];
                Transform parent = b.Parent < 0 ? root.transform : bones[b.Parent];
                var t = new GameObject(b.Name).transform;
                t.SetParent(parent, false);
                t.localPosition = new Vector3(b.X, b.Y, b.Z);
                t.localRotation = Quaternion.identity;
                bones[i] = t;
                // Body bones' Mecanim names (HumanTrait.BoneName) are the HumanBodyBones names.
                var hb = new HumanBone { boneName = b.Name, humanName = b.Name };
                var limit = new HumanLimit();
                limit.useDefaultValues = true;
                hb.limit = limit;
                human[i] = hb;
                skeleton[i + 1] = new SkeletonBone { name = b.Name, position = t.localPosition, rotation = Quaternion.identity, scale = Vector3.one };
            }
            var description = new HumanDescription { human = human, skeleton = skeleton };
            Avatar avatar = AvatarBuilder.BuildHumanAvatar(root, description);
            var animator = root.AddComponent<Animator>();
            if (avatar != null && avatar.isValid && avatar.isHuman)
            {
                avatar.name = name + " Avatar";
                animator.avatar = avatar;
            }
            else Debug.LogError("KindRetargeting: the code-made humanoid '" + name + "' did not give a valid humanoid Avatar", root);
            animator.applyRootMotion = false;
            root.transform.position = position;
            if (withShapes)
                for (int i = 0; i < spec.Count; i++)
                {
                    KindHumanoidBone b = spec[i];
                    bool hasChild = false;
                    for (int j = i + 1; j < spec.Count; j++)
                        if (spec[j].Parent == i)
                        {
                            hasChild = true;
                            // the torso's shapes start at the child's side: no capsule from the hips across to the legs' joints
                            if (b.Parent < 0 && spec[j].Y < 0f) continue;
                            AddCapsule(bones[i], Vector3.zero, new Vector3(spec[j].X, spec[j].Y, spec[j].Z), b.Radius);
                        }
                    if (!hasChild)
                    {
                        var tip = new Vector3(b.TipX, b.TipY, b.TipZ);
                        if (b.HumanBodyBone == KindHumanoidProportions.HeadBone) AddSphere(bones[i], tip * 0.5f, b.Radius);
                        else AddCapsule(bones[i], Vector3.zero, tip, b.Radius);
                    }
                }
            return animator;
        }

        /// <summary>
        /// Capsules from each of <paramref name="bones"/> to each child bone in the list (parents first), radius
        /// <paramref name="radius"/> metres; a bone without a child gets a sphere. Shows a skeleton that has no mesh.
        /// </summary>
        public static void AddShapes(IList<Transform> bones, float radius)
        {
            for (int i = 0; i < bones.Count; i++)
            {
                bool hasChild = false;
                for (int j = 0; j < bones.Count; j++)
                    if (j != i && bones[j].parent == bones[i])
                    {
                        hasChild = true;
                        AddCapsule(bones[i], Vector3.zero, bones[j].localPosition, radius);
                    }
                if (!hasChild) AddSphere(bones[i], Vector3.zero, radius * 1.5f);
            }
        }

        /// <summary>A capsule without collider under <paramref name="bone"/>, from <paramref name="from"/> to <paramref name="to"/> (bone-local metres), radius <paramref name="radius"/>.</summary>
        public static void AddCapsule(Transform bone, Vector3 from, Vector3 to, float radius)
        {
            Vector3 d = to - from;
            float length = d.magnitude;
            if (length < 1e-4f) return;
            GameObject shape = Shape(PrimitiveType.Capsule, bone);
            shape.transform.localPosition = (from + to) * 0.5f;
            shape.transform.localRotation = Quaternion.FromToRotation(Vector3.up, d);
            // Unity's capsule primitive is 2 m tall with radius 0.5 m at scale 1 (ScriptReference/PrimitiveType.Capsule.html)
            shape.transform.localScale = new Vector3(2f * radius, 0.5f * length, 2f * radius);
        }

        /// <summary>A sphere without collider under <paramref name="bone"/> at <paramref name="center"/> (bone-local metres).</summary>
        public static void AddSphere(Transform bone, Vector3 center, float radius)
        {
            GameObject shape = Shape(PrimitiveType.Sphere, bone);
            shape.transform.localPosition = center;
            // Unity's sphere primitive has radius 0.5 m at scale 1
            shape.transform.localScale = new Vector3(2f * radius, 2f * radius, 2f * radius);
        }

        static GameObject Shape(PrimitiveType type, Transform bone)
        {
            GameObject go = GameObject.CreatePrimitive(type);
            go.name = ShapeName;
            Collider c = go.GetComponent<Collider>();
            if (c != null)
            {
                if (Application.isPlaying) Object.Destroy(c);
                else Object.DestroyImmediate(c);
            }
            go.transform.SetParent(bone, false);
            return go;
        }
    }
}
