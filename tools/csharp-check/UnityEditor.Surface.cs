// =====================================================================================================
// COMPILE-CHECK SURFACE — NOT A RUNTIME. NOTHING HERE RUNS.
//
// A hand-declared subset of the UnityEditor API (Unity 2021.3) holding exactly what the Editor C# of
// Packages/com.kind.retargeting uses. Each type cites its Scripting Reference page
// (https://docs.unity3d.com/2021.3/Documentation/ScriptReference/<Page>.html). Same rules as
// UnityEngine.Surface.cs: faithful signatures, stub bodies.
// =====================================================================================================
#pragma warning disable 0067, 0649, 0169, 0414
using System;
using UnityEngine;

namespace UnityEditor
{
    // ScriptReference/Editor.html
    public class Editor : ScriptableObject
    {
        public UnityEngine.Object target { get { throw null; } set { } }
        public UnityEngine.Object[] targets { get { throw null; } }
        public virtual void OnInspectorGUI() { }
        public bool DrawDefaultInspector() { throw null; }
        public void Repaint() { }
        // ScriptReference/Editor.CreateInspectorGUI.html, Editor.RequiresConstantRepaint.html
        public virtual UnityEngine.UIElements.VisualElement CreateInspectorGUI() { throw null; }
        public virtual bool RequiresConstantRepaint() { throw null; }
    }

    // ScriptReference/CustomEditor.html
    [AttributeUsage(AttributeTargets.Class, AllowMultiple = true, Inherited = false)]
    public class CustomEditor : Attribute
    {
        public CustomEditor(Type inspectedType) { }
        public CustomEditor(Type inspectedType, bool editorForChildClasses) { }
    }

    // ScriptReference/EditorWindow.html
    public class EditorWindow : ScriptableObject
    {
        public GUIContent titleContent { get { throw null; } set { } }
        public static T GetWindow<T>(string title) where T : EditorWindow { throw null; }
        public void Show() { }
        public void Repaint() { }
        public void Close() { }
    }

    // ScriptReference/MenuItem.html
    [AttributeUsage(AttributeTargets.Method, AllowMultiple = true)]
    public sealed class MenuItem : Attribute
    {
        public MenuItem(string itemName) { }
        public MenuItem(string itemName, bool isValidateFunction) { }
        public MenuItem(string itemName, bool isValidateFunction, int priority) { }
    }

    // ScriptReference/EditorGUILayout.html
    public sealed class EditorGUILayout
    {
        public static void LabelField(string label, params GUILayoutOption[] options) { }
        public static void LabelField(string label, string label2, params GUILayoutOption[] options) { }
        public static float FloatField(string label, float value, params GUILayoutOption[] options) { throw null; }
        public static float Slider(string label, float value, float leftValue, float rightValue, params GUILayoutOption[] options) { throw null; }
        public static bool Toggle(string label, bool value, params GUILayoutOption[] options) { throw null; }
        public static string TextField(string label, string text, params GUILayoutOption[] options) { throw null; }
        public static int Popup(string label, int selectedIndex, string[] displayedOptions, params GUILayoutOption[] options) { throw null; }
        public static UnityEngine.Object ObjectField(string label, UnityEngine.Object obj, Type objType, bool allowSceneObjects, params GUILayoutOption[] options) { throw null; }
        public static bool Foldout(bool foldout, string content) { throw null; }
        public static void HelpBox(string message, MessageType type) { }
        public static void Space() { }
        public static Vector2 BeginScrollView(Vector2 scrollPosition, params GUILayoutOption[] options) { throw null; }
        public static void EndScrollView() { }
    }

    // ScriptReference/MessageType.html
    public enum MessageType { None = 0, Info = 1, Warning = 2, Error = 3 }

    // ScriptReference/EditorApplication.html
    public sealed class EditorApplication
    {
        public delegate void CallbackFunction();
        public static CallbackFunction update;
        public static bool isPlaying { get { throw null; } set { } }
        // ScriptReference/EditorApplication-timeSinceStartup.html
        public static double timeSinceStartup { get { throw null; } }
    }

    // ScriptReference/EditorUtility.html
    public sealed class EditorUtility
    {
        public static string SaveFilePanel(string title, string directory, string defaultName, string extension) { throw null; }
        public static string OpenFilePanel(string title, string directory, string extension) { throw null; }
        // ScriptReference/EditorUtility.OpenFolderPanel.html
        public static string OpenFolderPanel(string title, string folder, string defaultName) { throw null; }
        public static bool DisplayDialog(string title, string message, string ok) { throw null; }
        public static void SetDirty(UnityEngine.Object target) { }
    }

    // ScriptReference/EditorPrefs.html, EditorPrefs.GetString.html, EditorPrefs.SetString.html, EditorPrefs.DeleteKey.html
    public class EditorPrefs
    {
        public static string GetString(string key, string defaultValue) { throw null; }
        public static void SetString(string key, string value) { }
        public static void DeleteKey(string key) { }
    }

    // ScriptReference/InitializeOnLoadAttribute.html
    [AttributeUsage(AttributeTargets.Class)]
    public class InitializeOnLoadAttribute : Attribute
    {
    }

    // ScriptReference/AssetDatabase.html
    public sealed class AssetDatabase
    {
        public static void Refresh() { }
        // ScriptReference/AssetDatabase.LoadAssetAtPath.html
        public static T LoadAssetAtPath<T>(string assetPath) where T : UnityEngine.Object { throw null; }
        // ScriptReference/AssetDatabase.CreateAsset.html
        public static void CreateAsset(UnityEngine.Object asset, string path) { }
    }

    // ScriptReference/PrefabUtility.InstantiatePrefab.html
    public sealed class PrefabUtility
    {
        public static UnityEngine.Object InstantiatePrefab(UnityEngine.Object assetComponentOrGameObject) { throw null; }
    }

    // ScriptReference/Selection.html
    public sealed class Selection
    {
        public static GameObject activeGameObject { get { throw null; } set { } }
        public static UnityEngine.Object activeObject { get { throw null; } set { } }
    }

    // ScriptReference/Undo.html
    public class Undo
    {
        public static void RegisterCreatedObjectUndo(UnityEngine.Object objectToUndo, string name) { }
        public static void RecordObject(UnityEngine.Object objectToUndo, string name) { }
    }
}

namespace UnityEditor.SceneManagement
{
    // ScriptReference/SceneManagement.EditorSceneManager.html
    public sealed class EditorSceneManager
    {
        public static UnityEngine.SceneManagement.Scene NewScene(NewSceneSetup setup, NewSceneMode mode) { throw null; }
        public static bool SaveScene(UnityEngine.SceneManagement.Scene scene, string dstScenePath) { throw null; }
    }

    // ScriptReference/SceneManagement.NewSceneSetup.html
    public enum NewSceneSetup { EmptyScene = 0, DefaultGameObjects = 1 }

    // ScriptReference/SceneManagement.NewSceneMode.html
    public enum NewSceneMode { Single = 0, Additive = 1 }
}
