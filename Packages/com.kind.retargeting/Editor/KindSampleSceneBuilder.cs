// Tools > Kind Retargeting > Build Sample Scene: builds and saves the demo scene from three humanoid
// models you pick (a hand-written .unity YAML file would have to reference your model assets by GUID,
// so the scene is built by code instead). Layout:
//   Kind Runtime                   KindRuntime + RetargetingRemoteController (ws://127.0.0.1:64212/retargeting)
//   Source  (model 1)              its own Animator controller plays; KindAnimatorSource
//   Avatar A (model 2, x = 1.5 m)  CustomRetargetingScript (source -> A) + Limb/Finger/Prop controllers
//   Avatar B (model 3, x = 3 m)    driven from Avatar A by SimplePoseTransfer (each avatar stands at its own root)
// When the OptiTrack sample (Samples~/OptiTrack) is imported, a KindOptitrackSource is added next to the
// Animator source (switch CustomRetargetingScript.source to it to drive from Motive). That script lives in
// Assembly-CSharp, which this Editor asmdef cannot reference, so it is found by name at run time.
using UnityEditor;
using UnityEditor.SceneManagement;
using UnityEngine;

namespace KindRetargeting.Editor
{
    public sealed class KindSampleSceneBuilder : EditorWindow
    {
        GameObject sourceModel, avatarA, avatarB;
        string scenePath = "Assets/KindRetargeting/KindRetargetingSample.unity";

        [MenuItem("Tools/Kind Retargeting/Build Sample Scene")]
        public static void Open() { GetWindow<KindSampleSceneBuilder>("Kind sample scene"); }

        void OnGUI()
        {
            EditorGUILayout.HelpBox("Pick three humanoid models (FBX/prefab with a Humanoid Avatar). The source should have an Animator Controller that plays a motion.", MessageType.Info);
            sourceModel = (GameObject)EditorGUILayout.ObjectField("Source (animated)", sourceModel, typeof(GameObject), false);
            avatarA = (GameObject)EditorGUILayout.ObjectField("Avatar A", avatarA, typeof(GameObject), false);
            avatarB = (GameObject)EditorGUILayout.ObjectField("Avatar B", avatarB, typeof(GameObject), false);
            scenePath = EditorGUILayout.TextField("Save as", scenePath);
            GUI.enabled = sourceModel != null && avatarA != null && avatarB != null;
            if (GUILayout.Button("Build")) Build(sourceModel, avatarA, avatarB, scenePath);
            GUI.enabled = true;
        }

        /// <summary>Builds the sample scene in a new scene and saves it to <paramref name="path"/>.</summary>
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
            if (animA != null) animA.runtimeAnimatorController = null; // the hub writes the pose
            var hub = a.AddComponent<CustomRetargetingScript>();
            hub.characterName = "AvatarA";
            hub.source = animatorSource;
            hub.targetAnimator = animA;
            a.AddComponent<LimbWeightController>();
            a.AddComponent<FingerShapedController>();
            a.AddComponent<PropLocationController>();
            a.AddComponent<IKTargetGizmo>();

            GameObject b = Place(prefabB, "Avatar B", 3f);
            Animator animB = b.GetComponent<Animator>();
            if (animB != null) animB.runtimeAnimatorController = null;
            var transfer = new GameObject("Pose Transfer A -> B").AddComponent<SimplePoseTransfer>();
            transfer.sourceAvatar = animA;
            transfer.targets = new[] { new SimplePoseTransfer.TargetEntry { animator = animB, hipOffset = Vector3.zero } };

            if (!string.IsNullOrEmpty(path))
            {
                System.IO.Directory.CreateDirectory(System.IO.Path.GetDirectoryName(path));
                EditorSceneManager.SaveScene(scene, path);
                AssetDatabase.Refresh();
                Debug.Log("KindRetargeting: sample scene saved to " + path);
            }
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
