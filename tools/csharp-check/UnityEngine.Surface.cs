// =====================================================================================================
// COMPILE-CHECK SURFACE — NOT A RUNTIME. NOTHING HERE RUNS.
//
// A hand-declared subset of the UnityEngine API (Unity 2021.3), holding exactly the types and members
// the C# of Packages/com.kind.retargeting uses, so that `node tools/check-csharp.mjs` can compile the
// package with Mono's `mcs` on a machine without Unity. Bodies are stubs (`throw null` / defaults).
// Signatures are copied by hand from the Unity 2021.3 Scripting Reference; each type cites its page
// (https://docs.unity3d.com/2021.3/Documentation/ScriptReference/<Page>.html). When the package starts
// using a new Unity member, declare it here with the same signature and cite its page; never widen a
// signature to make the package compile.
// =====================================================================================================
#pragma warning disable 0067, 0649, 0169, 0414, 0660, 0661
using System;
using System.Collections;

namespace UnityEngine
{
    // ScriptReference/Object.html
    public class Object
    {
        public string name { get { throw null; } set { } }
        public HideFlags hideFlags { get { throw null; } set { } }
        public int GetInstanceID() { throw null; }
        public static void Destroy(Object obj) { }
        public static void DestroyImmediate(Object obj) { }
        public static void DontDestroyOnLoad(Object target) { }
        public static T FindObjectOfType<T>() where T : Object { throw null; }
        public static T[] FindObjectsOfType<T>() where T : Object { throw null; }
        public static T Instantiate<T>(T original) where T : Object { throw null; }
        public static implicit operator bool(Object exists) { throw null; }
        public static bool operator ==(Object x, Object y) { throw null; }
        public static bool operator !=(Object x, Object y) { throw null; }
    }

    // ScriptReference/HideFlags.html
    [Flags]
    public enum HideFlags { None = 0, HideInHierarchy = 1, HideInInspector = 2, DontSaveInEditor = 4, NotEditable = 8, DontSaveInBuild = 16, DontUnloadUnusedAsset = 32, DontSave = 52, HideAndDontSave = 61 }

    // ScriptReference/Component.html
    public class Component : Object
    {
        public Transform transform { get { throw null; } }
        public GameObject gameObject { get { throw null; } }
        public T GetComponent<T>() { throw null; }
        public T GetComponentInChildren<T>() { throw null; }
        public T GetComponentInParent<T>() { throw null; }
        public T[] GetComponentsInChildren<T>(bool includeInactive) { throw null; }
        public Component GetComponent(Type type) { throw null; }
        // ScriptReference/Component.CompareTag.html
        public bool CompareTag(string tag) { throw null; }
    }

    // ScriptReference/Behaviour.html
    public class Behaviour : Component
    {
        public bool enabled { get { throw null; } set { } }
        public bool isActiveAndEnabled { get { throw null; } }
    }

    // ScriptReference/MonoBehaviour.html (messages such as Update are found by name, not declared)
    public class MonoBehaviour : Behaviour
    {
    }

    // ScriptReference/ScriptableObject.html
    public class ScriptableObject : Object
    {
    }

    // ScriptReference/GameObject.html
    public sealed class GameObject : Object
    {
        public GameObject(string name) { }
        public Transform transform { get { throw null; } }
        public bool activeInHierarchy { get { throw null; } }
        public T AddComponent<T>() where T : Component { throw null; }
        public Component AddComponent(Type componentType) { throw null; }
        public T GetComponent<T>() { throw null; }
        public T GetComponentInChildren<T>() { throw null; }
        public void SetActive(bool value) { }
        // ScriptReference/GameObject-tag.html
        public string tag { get { throw null; } set { } }
        public static GameObject CreatePrimitive(PrimitiveType type) { throw null; }
    }

    // ScriptReference/PrimitiveType.html
    public enum PrimitiveType { Sphere = 0, Capsule = 1, Cylinder = 2, Cube = 3, Plane = 4, Quad = 5 }

    // ScriptReference/Transform.html
    public class Transform : Component, IEnumerable
    {
        public Vector3 position { get { throw null; } set { } }
        public Vector3 localPosition { get { throw null; } set { } }
        public Quaternion rotation { get { throw null; } set { } }
        public Quaternion localRotation { get { throw null; } set { } }
        public Vector3 localScale { get { throw null; } set { } }
        public Transform parent { get { throw null; } set { } }
        public int childCount { get { throw null; } }
        public Transform GetChild(int index) { throw null; }
        public void SetParent(Transform parent, bool worldPositionStays) { }
        public bool IsChildOf(Transform parent) { throw null; }
        // ScriptReference/Transform.Find.html, Transform.TransformPoint.html, Transform.InverseTransformVector.html
        public Transform Find(string n) { throw null; }
        public Vector3 TransformPoint(Vector3 position) { throw null; }
        public Vector3 InverseTransformVector(Vector3 vector) { throw null; }
        public Transform root { get { throw null; } }
        public IEnumerator GetEnumerator() { throw null; }
    }

    // ScriptReference/Animator.html
    public class Animator : Behaviour
    {
        public bool isHuman { get { throw null; } }
        public Avatar avatar { get { throw null; } set { } }
        public bool applyRootMotion { get { throw null; } set { } }
        public RuntimeAnimatorController runtimeAnimatorController { get { throw null; } set { } }
        // ScriptReference/Animator.GetBoneTransform.html
        public Transform GetBoneTransform(HumanBodyBones humanBoneId) { throw null; }
    }

    // ScriptReference/Avatar.html
    public class Avatar : Object
    {
        public bool isHuman { get { throw null; } }
        public bool isValid { get { throw null; } }
    }

    // ScriptReference/AvatarBuilder.html, AvatarBuilder.BuildHumanAvatar.html
    public class AvatarBuilder
    {
        public static Avatar BuildHumanAvatar(GameObject go, HumanDescription humanDescription) { throw null; }
    }

    // ScriptReference/HumanDescription.html (human and skeleton are fields; the twist/stretch members, properties, are not used)
    public struct HumanDescription
    {
        public HumanBone[] human;
        public SkeletonBone[] skeleton;
    }

    // ScriptReference/HumanBone.html (boneName, humanName: properties; limit: a field)
    public struct HumanBone
    {
        public string boneName { get { throw null; } set { } }
        public string humanName { get { throw null; } set { } }
        public HumanLimit limit;
    }

    // ScriptReference/HumanLimit.html, HumanLimit-useDefaultValues.html
    public struct HumanLimit
    {
        public bool useDefaultValues { get { throw null; } set { } }
    }

    // ScriptReference/SkeletonBone.html
    public struct SkeletonBone
    {
        public string name;
        public Vector3 position;
        public Quaternion rotation;
        public Vector3 scale;
    }

    // ScriptReference/Collider.html
    public class Collider : Component
    {
    }

    // ScriptReference/RuntimeAnimatorController.html
    public class RuntimeAnimatorController : Object
    {
    }

    // ScriptReference/HumanBodyBones.html (values 0..54 in this order, LastBone = 55)
    public enum HumanBodyBones
    {
        Hips = 0, LeftUpperLeg = 1, RightUpperLeg = 2, LeftLowerLeg = 3, RightLowerLeg = 4, LeftFoot = 5, RightFoot = 6,
        Spine = 7, Chest = 8, Neck = 9, Head = 10, LeftShoulder = 11, RightShoulder = 12, LeftUpperArm = 13,
        RightUpperArm = 14, LeftLowerArm = 15, RightLowerArm = 16, LeftHand = 17, RightHand = 18, LeftToes = 19,
        RightToes = 20, LeftEye = 21, RightEye = 22, Jaw = 23, LeftThumbProximal = 24, LeftThumbIntermediate = 25,
        LeftThumbDistal = 26, LeftIndexProximal = 27, LeftIndexIntermediate = 28, LeftIndexDistal = 29,
        LeftMiddleProximal = 30, LeftMiddleIntermediate = 31, LeftMiddleDistal = 32, LeftRingProximal = 33,
        LeftRingIntermediate = 34, LeftRingDistal = 35, LeftLittleProximal = 36, LeftLittleIntermediate = 37,
        LeftLittleDistal = 38, RightThumbProximal = 39, RightThumbIntermediate = 40, RightThumbDistal = 41,
        RightIndexProximal = 42, RightIndexIntermediate = 43, RightIndexDistal = 44, RightMiddleProximal = 45,
        RightMiddleIntermediate = 46, RightMiddleDistal = 47, RightRingProximal = 48, RightRingIntermediate = 49,
        RightRingDistal = 50, RightLittleProximal = 51, RightLittleIntermediate = 52, RightLittleDistal = 53,
        UpperChest = 54, LastBone = 55
    }

    // ScriptReference/Vector2.html
    public struct Vector2
    {
        public float x;
        public float y;
        public Vector2(float x, float y) { this.x = x; this.y = y; }
        public static Vector2 zero { get { throw null; } }
    }

    // ScriptReference/Vector3.html
    public struct Vector3
    {
        public float x;
        public float y;
        public float z;
        public Vector3(float x, float y, float z) { this.x = x; this.y = y; this.z = z; }
        public static Vector3 zero { get { throw null; } }
        public static Vector3 one { get { throw null; } }
        public static Vector3 operator +(Vector3 a, Vector3 b) { throw null; }
        public static Vector3 operator -(Vector3 a, Vector3 b) { throw null; }
        public static Vector3 operator *(Vector3 a, float d) { throw null; }
        public static Vector3 operator *(float d, Vector3 a) { throw null; }
        public static Vector3 Scale(Vector3 a, Vector3 b) { throw null; }
        public static Vector3 up { get { throw null; } }
        // ScriptReference/Vector3-magnitude.html
        public float magnitude { get { throw null; } }
        public static Vector3 operator /(Vector3 a, float d) { throw null; }
    }

    // ScriptReference/Quaternion.html
    public struct Quaternion
    {
        public float x;
        public float y;
        public float z;
        public float w;
        public Quaternion(float x, float y, float z, float w) { this.x = x; this.y = y; this.z = z; this.w = w; }
        public static Quaternion identity { get { throw null; } }
        public static Quaternion Inverse(Quaternion rotation) { throw null; }
        public static Quaternion Euler(float x, float y, float z) { throw null; }
        // ScriptReference/Quaternion.FromToRotation.html
        public static Quaternion FromToRotation(Vector3 fromDirection, Vector3 toDirection) { throw null; }
        public static Quaternion operator *(Quaternion lhs, Quaternion rhs) { throw null; }
        public static Vector3 operator *(Quaternion rotation, Vector3 point) { throw null; }
    }

    // ScriptReference/Mathf.html
    public struct Mathf
    {
        public static float Clamp(float value, float min, float max) { throw null; }
        public static float Abs(float f) { throw null; }
        public static float Clamp01(float value) { throw null; }
    }

    // ScriptReference/Color.html
    public struct Color
    {
        public float r;
        public float g;
        public float b;
        public float a;
        public Color(float r, float g, float b, float a) { this.r = r; this.g = g; this.b = b; this.a = a; }
        public Color(float r, float g, float b) { this.r = r; this.g = g; this.b = b; this.a = 1f; }
        public static Color red { get { throw null; } }
        public static Color green { get { throw null; } }
        public static Color yellow { get { throw null; } }
        public static Color cyan { get { throw null; } }
        public static Color grey { get { throw null; } }
        public static Color white { get { throw null; } }
        public static Color magenta { get { throw null; } }
        public static Color Lerp(Color a, Color b, float t) { throw null; }
    }

    // ScriptReference/Gizmos.html
    public sealed class Gizmos
    {
        public static Color color { get { throw null; } set { } }
        public static void DrawSphere(Vector3 center, float radius) { }
        public static void DrawWireSphere(Vector3 center, float radius) { }
        public static void DrawLine(Vector3 from, Vector3 to) { }
        public static void DrawWireCube(Vector3 center, Vector3 size) { }
        public static void DrawCube(Vector3 center, Vector3 size) { }
    }

    // ScriptReference/Debug.html
    public class Debug
    {
        public static void Log(object message) { }
        public static void Log(object message, Object context) { }
        public static void LogWarning(object message) { }
        public static void LogWarning(object message, Object context) { }
        public static void LogError(object message) { }
        public static void LogError(object message, Object context) { }
        public static void LogException(Exception exception) { }
        public static void LogException(Exception exception, Object context) { }
    }

    // ScriptReference/Time.html
    public class Time
    {
        public static float deltaTime { get { throw null; } }
        public static int frameCount { get { throw null; } }
        public static float realtimeSinceStartup { get { throw null; } }
    }

    // ScriptReference/Application.html
    public class Application
    {
        public static bool isPlaying { get { throw null; } }
        public static bool isEditor { get { throw null; } }
        public static string dataPath { get { throw null; } }
        public static string persistentDataPath { get { throw null; } }
        // ScriptReference/Application-companyName.html, Application-productName.html, Application-quitting.html
        public static string companyName { get { throw null; } }
        public static string productName { get { throw null; } }
        public static event Action quitting;
    }

    // ScriptReference/Resources.html, ScriptReference/Resources.Load.html
    public sealed class Resources
    {
        public static Object Load(string path) { throw null; }
        public static T Load<T>(string path) where T : Object { throw null; }
    }

    // ScriptReference/TextAsset.html
    public class TextAsset : Object
    {
        public string text { get { throw null; } }
        public byte[] bytes { get { throw null; } }
    }

    // ScriptReference/SerializeField.html
    [AttributeUsage(AttributeTargets.Field, Inherited = true, AllowMultiple = false)]
    public sealed class SerializeField : Attribute { }

    // ScriptReference/HideInInspector.html
    [AttributeUsage(AttributeTargets.Field, Inherited = true, AllowMultiple = false)]
    public sealed class HideInInspector : Attribute { }

    // ScriptReference/PropertyAttribute.html
    [AttributeUsage(AttributeTargets.Field, Inherited = true, AllowMultiple = false)]
    public abstract class PropertyAttribute : Attribute { }

    // ScriptReference/HeaderAttribute.html
    [AttributeUsage(AttributeTargets.Field, Inherited = true, AllowMultiple = true)]
    public class HeaderAttribute : PropertyAttribute { public readonly string header; public HeaderAttribute(string header) { this.header = header; } }

    // ScriptReference/TooltipAttribute.html
    [AttributeUsage(AttributeTargets.Field, Inherited = true, AllowMultiple = false)]
    public class TooltipAttribute : PropertyAttribute { public readonly string tooltip; public TooltipAttribute(string tooltip) { this.tooltip = tooltip; } }

    // ScriptReference/RangeAttribute.html
    [AttributeUsage(AttributeTargets.Field, Inherited = true, AllowMultiple = false)]
    public sealed class RangeAttribute : PropertyAttribute { public readonly float min; public readonly float max; public RangeAttribute(float min, float max) { this.min = min; this.max = max; } }

    // ScriptReference/ContextMenu.html
    [AttributeUsage(AttributeTargets.Method, AllowMultiple = true)]
    public sealed class ContextMenu : Attribute { public ContextMenu(string itemName) { } }

    // ScriptReference/DefaultExecutionOrder.html
    [AttributeUsage(AttributeTargets.Class)]
    public class DefaultExecutionOrder : Attribute { public DefaultExecutionOrder(int order) { } public int order { get { throw null; } } }

    // ScriptReference/RequireComponent.html
    [AttributeUsage(AttributeTargets.Class, AllowMultiple = true)]
    public sealed class RequireComponent : Attribute { public RequireComponent(Type requiredComponent) { } }

    // ScriptReference/DisallowMultipleComponent.html
    [AttributeUsage(AttributeTargets.Class, Inherited = false, AllowMultiple = false)]
    public sealed class DisallowMultipleComponent : Attribute { }

    // ScriptReference/AddComponentMenu.html
    public sealed class AddComponentMenu : Attribute { public AddComponentMenu(string menuName) { } }

    // ScriptReference/GUILayout.html (used by the Editor windows)
    public class GUILayout
    {
        public static void Label(string text, params GUILayoutOption[] options) { }
        public static bool Button(string text, params GUILayoutOption[] options) { throw null; }
        public static void FlexibleSpace() { }
        public static void BeginHorizontal(params GUILayoutOption[] options) { }
        public static void EndHorizontal() { }
        public static GUILayoutOption Width(float width) { throw null; }
        public static GUILayoutOption ExpandWidth(bool expand) { throw null; }
    }

    // ScriptReference/GUILayoutOption.html
    public sealed class GUILayoutOption { }

    // ScriptReference/GUI.html (GUI.enabled)
    public class GUI
    {
        public static bool enabled { get { throw null; } set { } }
    }

    // ScriptReference/GUIUtility.html (GUIUtility.ExitGUI)
    public class GUIUtility
    {
        public static void ExitGUI() { }
    }

    // ScriptReference/GUIContent.html
    public class GUIContent
    {
        public GUIContent(string text) { }
    }
}

namespace UnityEngine.Scripting
{
    // ScriptReference/Scripting.PreserveAttribute.html
    [AttributeUsage(AttributeTargets.Assembly | AttributeTargets.Class | AttributeTargets.Struct | AttributeTargets.Enum | AttributeTargets.Constructor | AttributeTargets.Method | AttributeTargets.Property | AttributeTargets.Field | AttributeTargets.Event | AttributeTargets.Interface | AttributeTargets.Delegate, Inherited = false)]
    public class PreserveAttribute : Attribute { }
}

namespace UnityEngine.SceneManagement
{
    // ScriptReference/SceneManagement.Scene.html
    public struct Scene
    {
        public string name { get { throw null; } }
        public string path { get { throw null; } }
        public bool IsValid() { throw null; }
    }
}

namespace UnityEngine.UIElements
{
    // ScriptReference/UIElements.VisualElement.html
    public class VisualElement
    {
        public string name { get { throw null; } set { } }
        public IVisualElementScheduler schedule { get { throw null; } }
        public void Add(VisualElement child) { }
    }

    // ScriptReference/UIElements.TemplateContainer.html
    public class TemplateContainer : VisualElement { }

    // ScriptReference/UIElements.TextElement.html
    public class TextElement : VisualElement
    {
        public virtual string text { get { throw null; } set { } }
    }

    // ScriptReference/UIElements.Label.html
    public class Label : TextElement
    {
        public Label() { }
        public Label(string text) { }
    }

    // ScriptReference/UIElements.Button.html
    public class Button : TextElement
    {
        public Button() { }
        public Button(Action clickEvent) { }
        public event Action clicked;
    }

    // ScriptReference/UIElements.HelpBox.html (2020.1+)
    public class HelpBox : VisualElement
    {
        public HelpBox(string text, HelpBoxMessageType messageType) { }
        public string text { get { throw null; } set { } }
    }

    // ScriptReference/UIElements.HelpBoxMessageType.html
    public enum HelpBoxMessageType { None = 0, Info = 1, Warning = 2, Error = 3 }

    // ScriptReference/UIElements.VisualTreeAsset.html
    public class VisualTreeAsset : ScriptableObject
    {
        public TemplateContainer CloneTree() { throw null; }
    }

    // ScriptReference/UIElements.UQueryExtensions.html
    public static class UQueryExtensions
    {
        public static T Q<T>(this VisualElement e, string name = null, string className = null) where T : VisualElement { throw null; }
    }

    // ScriptReference/UIElements.IVisualElementScheduler.html
    public interface IVisualElementScheduler
    {
        IVisualElementScheduledItem Execute(Action timerUpdateEvent);
    }

    // ScriptReference/UIElements.IVisualElementScheduledItem.html
    public interface IVisualElementScheduledItem
    {
        IVisualElementScheduledItem Every(long intervalMs);
    }
}

namespace UnityEngine.Serialization
{
    // ScriptReference/Serialization.FormerlySerializedAsAttribute.html
    [System.AttributeUsage(System.AttributeTargets.Field, Inherited = false, AllowMultiple = true)]
    public class FormerlySerializedAsAttribute : System.Attribute
    {
        public FormerlySerializedAsAttribute(string oldName) { }
        public string oldName { get { throw null; } }
    }
}
