// Tools > Kind Retargeting > Build Sample Scene: builds and saves the demo scene. By default it needs
// nothing but this package (issue 21 part 6): the source is a code-made skeleton playing the embedded default
// walk from the bundle (KindDefaultTakeSource), the avatars are humanoids made in code (KindCodeHumanoid:
// transforms + AvatarBuilder.BuildHumanAvatar) of three proportions, their Avatars saved as assets next to the
// scene. Layout:
//   Kind Runtime                      KindRuntime + RetargetingRemoteController (ws://127.0.0.1:64212/retargeting)
//   Source (default walk, x = 0)      KindDefaultTakeSource (its skeleton is built on Play from the bundle)
//   Avatar A (Adult, x = 1.5 m)       CustomRetargetingScript (source -> A) + Limb/Finger/Prop controllers
//   Avatar B (Tall, x = 3 m)          driven from Avatar A by SimplePoseTransfer
//   Avatar C (Child, x = 4.5 m)       CustomRetargetingScript (source -> C): retargeting onto short legs
// With "Use my own models" it builds the earlier scene from three humanoid models you pick instead (a
// hand-written .unity YAML file would have to reference your model assets by GUID, so it is built by code):
//   Source  (model 1)              its own Animator controller plays; KindAnimatorSource
//   Avatar A (model 2, x = 1.5 m)  CustomRetargetingScript (source -> A) + Limb/Finger/Prop controllers
//   Avatar B (model 3, x = 3 m)    driven from Avatar A by SimplePoseTransfer (each avatar stands at its own root)
// When the OptiTrack sample (Samples~/OptiTrack) is imported, a KindOptitrackSource is added to a model source
// (switch CustomRetargetingScript.source to it to drive from Motive). That script lives in Assembly-CSharp,
// which this Editor asmdef cannot reference, so it is found by name at run time.
using UnityEditor;
using UnityEditor.SceneManagement;
using UnityEngine;

namespace KindRetargeting.Editor
{
    public sealed class KindSampleSceneBuilder : EditorWindow
    {
        GameObject sourceModel, avatarA, avatarB;
        bool ownModels;
        string scenePath = "Assets/KindRetargeting/KindRetargetingSample.unity";

        [MenuItem("Tools/Kind Retargeting/Build Sample Scene")]
        public static void Open() { GetWindow<KindSampleSceneBuilder>("Kind sample scene"); }

        void OnGUI()
        {
            ownModels = EditorGUILayout.Toggle("Use my own models", ownModels);
            if (!ownModels)
            {
                EditorGUILayout.HelpBox("Needs nothing but this package: a code-made skeleton plays the embedded default walk (from the bundle) and drives three code-made humanoids (adult, tall, child). Their Avatars are saved next to the scene.", MessageType.Info);
            }
            else
            {
                EditorGUILayout.HelpBox("Pick three humanoid models (FBX/prefab with a Humanoid Avatar). The source should have an Animator Controller that plays a motion.", MessageType.Info);
                sourceModel = (GameObject)EditorGUILayout.ObjectField("Source (animated)", sourceModel, typeof(GameObject), false);
                avatarA = (GameObject)EditorGUILayout.ObjectField("Avatar A", avatarA, typeof(GameObject), false);
                avatarB = (GameObject)EditorGUILayout.ObjectField("Avatar B", avatarB, typeof(GameObject), false);
            }
            scenePath = EditorGUILayout.TextField("Save as", scenePath);
            GUI.enabled = !ownModels || (sourceModel != null && avatarA != null && avatarB != null);
            if (GUILayout.Button("Build"))
            {
                if (ownModels) Build(sourceModel, avatarA, avatarB, scenePath);
                else BuildWithoutAssets(scenePath);
            }
            GUI.enabled = true;
        }

        /// <summary>
        /// Builds the sample scene with nothing but the package (see the file header) in a new scene and saves it to
        /// <paramref name="path"/> (empty: not saved); the code-made Avatars are saved as
        /// "&lt;scene name&gt; &lt;set&gt; Avatar.asset" next to it (an Avatar built in memory would not survive the save).
        /// </summary>
        public static void BuildWithoutAssets(string path)
        {
            var scene = EditorSceneManager.NewScene(NewSceneSetup.DefaultGameObjects, NewSceneMode.Single);
            if (!string.IsNullOrEmpty(path))
            {
                System.IO.Directory.CreateDirectory(System.IO.Path.GetDirectoryName(path));
                AssetDatabase.Refresh(); // CreateAsset needs the folder known to the AssetDatabase
            }

            var runtimeGo = new GameObject("Kind Runtime");
            runtimeGo.AddComponent<KindRuntime>();
            runtimeGo.AddComponent<RetargetingRemoteController>();
            Undo.RegisterCreatedObjectUndo(runtimeGo, "Build Kind sample scene");

            var sourceGo = new GameObject("Source (default walk)");
            var source = sourceGo.AddComponent<KindDefaultTakeSource>();
            Undo.RegisterCreatedObjectUndo(sourceGo, "Build Kind sample scene");

            Animator animA = CodeAvatar(KindHumanoidProportions.Adult(), "Avatar A (Adult)", 1.5f, path);
            AddHub(animA.gameObject, "AvatarA", source);

            Animator animB = CodeAvatar(KindHumanoidProportions.Tall(), "Avatar B (Tall)", 3f, path);
            var transfer = new GameObject("Pose Transfer A -> B").AddComponent<SimplePoseTransfer>();
            transfer.sourceAvatar = animA;
            transfer.targets = new[] { new SimplePoseTransfer.TargetEntry { animator = animB, hipOffset = Vector3.zero } };
            Undo.RegisterCreatedObjectUndo(transfer.gameObject, "Build Kind sample scene");

            Animator animC = CodeAvatar(KindHumanoidProportions.Child(), "Avatar C (Child)", 4.5f, path);
            AddHub(animC.gameObject, "AvatarC", source);

            Save(scene, path);
        }

        /// <summary>A code-made humanoid at x metres; its Avatar saved as an asset next to the scene (when it is saved).</summary>
        static Animator CodeAvatar(KindHumanoidProportions proportions, string label, float x, string scenePath)
        {
            Animator animator = KindCodeHumanoid.Create(proportions, label, new Vector3(x, 0f, 0f));
            Undo.RegisterCreatedObjectUndo(animator.gameObject, "Build Kind sample scene");
            if (animator.avatar != null && !string.IsNullOrEmpty(scenePath))
            {
                string folder = System.IO.Path.GetDirectoryName(scenePath).Replace('\\', '/');
                string asset = folder + "/" + System.IO.Path.GetFileNameWithoutExtension(scenePath) + " " + proportions.Name + " Avatar.asset";
                AssetDatabase.CreateAsset(animator.avatar, asset); // replaces an asset already at that path (ScriptReference/AssetDatabase.CreateAsset.html)
            }
            return animator;
        }

        /// <summary>The shells of a retargeted avatar: its hub (source -> this avatar) and controllers.</summary>
        static CustomRetargetingScript AddHub(GameObject go, string characterName, KindPoseSource source)
        {
            Animator animator = go.GetComponent<Animator>();
            if (animator != null) animator.runtimeAnimatorController = null; // the hub writes the pose
            var hub = go.AddComponent<CustomRetargetingScript>();
            hub.characterName = characterName;
            hub.source = source;
            hub.targetAnimator = animator;
            go.AddComponent<LimbWeightController>();
            go.AddComponent<FingerShapedController>();
            go.AddComponent<PropLocationController>();
            go.AddComponent<IKTargetGizmo>();
            return hub;
        }

        static void Save(UnityEngine.SceneManagement.Scene scene, string path)
        {
            if (string.IsNullOrEmpty(path)) return;
            System.IO.Directory.CreateDirectory(System.IO.Path.GetDirectoryName(path));
            EditorSceneManager.SaveScene(scene, path);
            AssetDatabase.Refresh();
            Debug.Log("KindRetargeting: sample scene saved to " + path);
        }

        /// <summary>Builds the sample scene from three models of the user's in a new scene and saves it to <paramref name="path"/>.</summary>
        public static void Build(GameObject sourcePrefab, GameObject prefabA, GameObject prefabB, string path)
        {
            var scene = EditorSceneManager.NewScene(NewSceneSetup.DefaultGameObjects, NewSceneMode.Single);

            var runtimeGo = new GameObject("Kind Runtime");
            runtimeGo.AddComponent<KindRuntime>();
            runtimeGo.AddComponent<RetargetingRemoteController>();

            GameObject source = Place(sourcePrefab, "Source", 0f);
            Animator sourceAnimator = source.GetComponent<Animator>();
            var animatorSource = source.AddComponent<KindAnimatorSource>();
            animatorSource.animator = sourceAnimator;
            System.Type optitrack = FindLoadedType(OptitrackSourceType);
            if (optitrack != null) source.AddComponent(optitrack);

            GameObject a = Place(prefabA, "Avatar A", 1.5f);
            Animator animA = a.GetComponent<Animator>();
            AddHub(a, "AvatarA", animatorSource);

            GameObject b = Place(prefabB, "Avatar B", 3f);
            Animator animB = b.GetComponent<Animator>();
            if (animB != null) animB.runtimeAnimatorController = null;
            var transfer = new GameObject("Pose Transfer A -> B").AddComponent<SimplePoseTransfer>();
            transfer.sourceAvatar = animA;
            transfer.targets = new[] { new SimplePoseTransfer.TargetEntry { animator = animB, hipOffset = Vector3.zero } };

            Save(scene, path);
        }

        /// <summary>Full name of the OptiTrack sample's source component (Samples~/OptiTrack, Assembly-CSharp once imported).</summary>
        public const string OptitrackSourceType = "KindRetargeting.KindOptitrackSource";

        /// <summary>The type named <paramref name="fullName"/> in any loaded assembly, or null.</summary>
        static System.Type FindLoadedType(string fullName)
        {
            foreach (System.Reflection.Assembly asm in System.AppDomain.CurrentDomain.GetAssemblies())
            {
                System.Type t = asm.GetType(fullName, false);
                if (t != null) return t;
            }
            return null;
        }

        static GameObject Place(GameObject prefab, string label, float x)
        {
            var go = (GameObject)PrefabUtility.InstantiatePrefab(prefab);
            go.name = label + " (" + prefab.name + ")";
            go.transform.position = new Vector3(x, 0f, 0f);
            Undo.RegisterCreatedObjectUndo(go, "Build Kind sample scene");
            if (go.GetComponent<Animator>() == null) Debug.LogWarning("KindRetargeting: '" + prefab.name + "' has no Animator on its root; add one with a Humanoid Avatar.");
            return go;
        }
    }
}
