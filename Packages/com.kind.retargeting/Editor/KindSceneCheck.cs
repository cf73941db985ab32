// Tools > Kind Retargeting > Check Scene (and the "Check scene" inspector buttons): the set-up checklist
// and the troubleshooting table of the original KindRetargeting as automatic checks, each with its fix.
// Results go to the Console (one line per check, with the object as context) and to the control window,
// which offers the automatic fixes as buttons.
using System;
using System.Collections.Generic;
using System.Reflection;
using KindRetargeting;
using KindRetargeting.EnumsList;
using UnityEditor;
using UnityEngine;

namespace KindRetargeting.Editor
{
    public enum KindCheckStatus { Pass, Warning, Fail, Skipped }

    /// <summary>One check's outcome: what was checked, on which object, and how to fix it.</summary>
    public sealed class KindCheckResult
    {
        public string Check;
        public KindCheckStatus Status;
        public string Message;
        /// <summary>What to do (always set for Warning and Fail).</summary>
        public string FixDescription;
        /// <summary>The automatic fix, or null when it needs a person (then FixDescription says what to do).</summary>
        public Action Fix;
        public UnityEngine.Object Context;

        public override string ToString()
        {
            return "[" + Status + "] " + Check + ": " + Message + (Status == KindCheckStatus.Warning || Status == KindCheckStatus.Fail ? " Fix: " + FixDescription : "");
        }
    }

    public static class KindSceneCheck
    {
        /// <summary>The checks, in the order they run (the names the results carry).</summary>
        public static readonly string[] Checks =
        {
            "Streaming client present and address set",
            "Source connected and skeleton detected",
            "IK roots under the source",
            "Remote controller present, character registered",
            "Props tagged",
            "Chair props typed Chair",
            "Multi-avatar transfer initialised",
            "Leg bones mapped (hips floating or sinking)",
            "Finger muscles enabled per hand",
        };

        /// <summary>The results of the last run (for the control window), or null.</summary>
        public static List<KindCheckResult> LastResults;

        static readonly HumanBodyBones[] LegBones =
        {
            HumanBodyBones.Hips, HumanBodyBones.LeftUpperLeg, HumanBodyBones.LeftLowerLeg, HumanBodyBones.LeftFoot,
            HumanBodyBones.RightUpperLeg, HumanBodyBones.RightLowerLeg, HumanBodyBones.RightFoot,
        };

        [MenuItem("Tools/Kind Retargeting/Check Scene")]
        public static void RunFromMenu()
        {
            List<KindCheckResult> results = Run();
            Log(results);
            KindControlWindow.Open();
        }

        /// <summary>Runs every check on the open scene; stores and returns the results.</summary>
        public static List<KindCheckResult> Run()
        {
            var r = new List<KindCheckResult>();
            bool playing = Application.isPlaying;
            var scripts = UnityEngine.Object.FindObjectsOfType<CustomRetargetingScript>();
            CheckStreaming(r);
            CheckSources(r, scripts, playing);
            CheckRemote(r, scripts, playing);
            CheckProps(r);
            CheckTransfers(r, playing);
            CheckLegs(r, scripts);
            CheckFingers(r, scripts);
            LastResults = r;
            return r;
        }

        /// <summary>One Console line per result (errors for Fail, warnings for Warning).</summary>
        public static void Log(List<KindCheckResult> results)
        {
            int fails = 0, warnings = 0;
            foreach (KindCheckResult x in results)
            {
                string line = "KindRetargeting scene check " + x;
                if (x.Status == KindCheckStatus.Fail) { fails++; Debug.LogError(line, x.Context); }
                else if (x.Status == KindCheckStatus.Warning) { warnings++; Debug.LogWarning(line, x.Context); }
                else Debug.Log(line, x.Context);
            }
            Debug.Log("KindRetargeting scene check: " + results.Count + " results, " + fails + " failed, " + warnings + " warnings");
        }

        static KindCheckResult Add(List<KindCheckResult> r, int check, KindCheckStatus status, string message, UnityEngine.Object context, string fixText = null, Action fix = null)
        {
            var x = new KindCheckResult { Check = Checks[check], Status = status, Message = message, Context = context, FixDescription = fixText, Fix = fix };
            r.Add(x);
            return x;
        }

        static string Name(UnityEngine.Object o) { return o == null ? "(none)" : "'" + o.name + "'"; }

        // 0. Streaming client (OptiTrack plugin's OptitrackStreamingClient, found by type name: it lives in Assembly-CSharp).
        static void CheckStreaming(List<KindCheckResult> r)
        {
            var optitrack = new List<KindPoseSource>();
            foreach (KindPoseSource s in UnityEngine.Object.FindObjectsOfType<KindPoseSource>())
                if (s.GetType().Name == "KindOptitrackSource") optitrack.Add(s);
            var clients = new List<MonoBehaviour>();
            foreach (MonoBehaviour m in UnityEngine.Object.FindObjectsOfType<MonoBehaviour>())
                if (m != null && m.GetType().Name == "OptitrackStreamingClient") clients.Add(m);
            if (optitrack.Count == 0 && clients.Count == 0)
            {
                Add(r, 0, KindCheckStatus.Pass, "no OptiTrack source in the scene, no streaming client needed", null);
                return;
            }
            if (clients.Count == 0)
            {
                Type t = FindType("OptitrackStreamingClient");
                KindPoseSource first = optitrack[0];
                Add(r, 0, KindCheckStatus.Fail, "OptiTrack source " + Name(first) + " but no OptitrackStreamingClient in the scene", first,
                    "add the OptiTrack plugin's OptitrackStreamingClient and set its Server Address to Motive's machine",
                    t == null ? null : (Action)(() => { Undo.RecordObject(first.gameObject, "Add streaming client"); first.gameObject.AddComponent(t); }));
                return;
            }
            foreach (MonoBehaviour c in clients)
            {
                FieldInfo f = c.GetType().GetField("ServerAddress");
                string address = f != null ? f.GetValue(c) as string : null;
                if (f != null && string.IsNullOrEmpty(address))
                    Add(r, 0, KindCheckStatus.Fail, "streaming client " + Name(c) + " has no Server Address", c, "set Server Address to the IP of the machine running Motive (127.0.0.1 when it is this one)",
                        () => { Undo.RecordObject(c, "Set server address"); f.SetValue(c, "127.0.0.1"); EditorUtility.SetDirty(c); });
                else Add(r, 0, KindCheckStatus.Pass, "streaming client " + Name(c) + (address != null ? " -> " + address : ""), c);
            }
            foreach (KindPoseSource s in optitrack)
            {
                FieldInfo f = s.GetType().GetField("streamingClient");
                if (f != null && f.GetValue(s) == null && clients.Count == 1)
                {
                    MonoBehaviour client = clients[0];
                    Add(r, 0, KindCheckStatus.Warning, "OptiTrack source " + Name(s) + " has no streamingClient set (it falls back to the default client)", s,
                        "assign " + Name(client) + " to its streamingClient", () => { Undo.RecordObject(s, "Assign streaming client"); f.SetValue(s, client); EditorUtility.SetDirty(s); });
                }
            }
        }

        // 1, 2. Source connected / skeleton detected; the source skeleton under the source object, not under the avatar.
        static void CheckSources(List<KindCheckResult> r, CustomRetargetingScript[] scripts, bool playing)
        {
            if (scripts.Length == 0) Add(r, 1, KindCheckStatus.Warning, "no CustomRetargetingScript in the scene", null, "add one to the avatar (Add Component > Kind Retargeting > Custom Retargeting Script)");
            foreach (CustomRetargetingScript s in scripts)
            {
                if (s.source == null)
                {
                    var all = UnityEngine.Object.FindObjectsOfType<KindPoseSource>();
                    Add(r, 1, KindCheckStatus.Fail, Name(s) + " has no source", s, all.Length == 1 ? "assign the scene's only source " + Name(all[0]) : "assign a source (KindAnimatorSource, KindOptitrackSource)",
                        all.Length == 1 ? (Action)(() => { Undo.RecordObject(s, "Assign source"); s.source = all[0]; EditorUtility.SetDirty(s); }) : null);
                    continue;
                }
                if (s.targetAnimator == null)
                {
                    Animator own = s.GetComponent<Animator>();
                    Add(r, 1, KindCheckStatus.Fail, Name(s) + " has no target Animator", s, own != null ? "use the Animator on the same GameObject" : "assign the avatar's humanoid Animator",
                        own != null ? (Action)(() => { Undo.RecordObject(s, "Assign target"); s.targetAnimator = own; EditorUtility.SetDirty(s); }) : null);
                }
                if (s.targetAnimator != null && s.source.transform.IsChildOf(s.targetAnimator.transform))
                    Add(r, 2, KindCheckStatus.Fail, "source " + Name(s.source) + " is inside the avatar it drives " + Name(s.targetAnimator), s.source, "move the source out of the avatar's hierarchy");
                if (!playing)
                {
                    Add(r, 1, KindCheckStatus.Skipped, Name(s) + ": connection and skeleton are checked in Play mode", s);
                    continue;
                }
                if (!s.source.IsReady)
                {
                    Add(r, 1, KindCheckStatus.Fail, "source " + Name(s.source) + " of " + Name(s) + " has no skeleton yet", s.source,
                        "OptiTrack: Motive streaming on, skeleton asset name as in Motive, local/server addresses right; Animator source: a humanoid Animator");
                    continue;
                }
                Add(r, 1, KindCheckStatus.Pass, "source " + Name(s.source) + " connected, " + s.source.Bones.Count + " bones", s.source);
                Transform root = s.source.Bones.Count > 0 ? s.source.Bones[0] : null;
                if (root != null && !root.IsChildOf(s.source.transform))
                    Add(r, 2, KindCheckStatus.Warning, "the skeleton root " + Name(root) + " of source " + Name(s.source) + " is not under the source object", root,
                        "parent the skeleton (or put the source component) so the skeleton root is under the source; the pose is sent relative to the source's root");
                else Add(r, 2, KindCheckStatus.Pass, "skeleton of " + Name(s.source) + " under the source", s.source);
            }
        }

        // 3. Remote controller and registration.
        static void CheckRemote(List<KindCheckResult> r, CustomRetargetingScript[] scripts, bool playing)
        {
            var remotes = UnityEngine.Object.FindObjectsOfType<RetargetingRemoteController>();
            if (remotes.Length == 0)
            {
                Add(r, 3, KindCheckStatus.Warning, "no RetargetingRemoteController: remote controllers (StreamDeck, the viewer panel) cannot connect", null,
                    "add a RetargetingRemoteController (to the Kind Runtime object)",
                    () =>
                    {
                        KindRuntime rt = UnityEngine.Object.FindObjectOfType<KindRuntime>();
                        GameObject go = rt != null ? rt.gameObject : new GameObject("Kind Runtime");
                        if (rt == null) Undo.RegisterCreatedObjectUndo(go, "Add Kind Runtime");
                        go.AddComponent<RetargetingRemoteController>();
                    });
            }
            else Add(r, 3, KindCheckStatus.Pass, "remote controller on " + Name(remotes[0]) + " port " + remotes[0].port, remotes[0]);
            var seen = new Dictionary<string, CustomRetargetingScript>();
            foreach (CustomRetargetingScript s in scripts)
            {
                CustomRetargetingScript other;
                if (seen.TryGetValue(s.CharacterName, out other))
                {
                    CustomRetargetingScript dup = s;
                    Add(r, 3, KindCheckStatus.Fail, Name(s) + " and " + Name(other) + " share the character name '" + s.CharacterName + "' (the remote addresses characters by name)", s,
                        "give " + Name(s) + " its own characterName", () => { Undo.RecordObject(dup, "Rename character"); dup.characterName = dup.gameObject.name + "_" + dup.GetInstanceID(); EditorUtility.SetDirty(dup); });
                    continue;
                }
                seen[s.CharacterName] = s;
                if (!playing) continue;
                bool registered = false;
                KindRuntime rt = KindRuntime.Current;
                if (rt != null) foreach (KindCharacter c in rt.Characters) if (c.Owner == s) registered = true;
                if (registered) Add(r, 3, KindCheckStatus.Pass, "character '" + s.CharacterName + "' registered", s);
                else Add(r, 3, KindCheckStatus.Fail, "character '" + s.CharacterName + "' is not registered (its hub did not start)", s, "see the Console errors of " + Name(s) + " (source not ready, Animator not humanoid, bundle not loaded)");
            }
        }

        // 4, 5. Props typed; chairs typed Chair.
        static void CheckProps(List<KindCheckResult> r)
        {
            var props = new List<Transform>();
            foreach (PropLocationController pl in UnityEngine.Object.FindObjectsOfType<PropLocationController>())
            {
                for (int p = 0; p < 3; p++)
                {
                    Transform bone = pl.Bone((KindPropPoint)p);
                    Transform t = bone != null ? bone.Find(PropLocationController.TargetNames[p]) : null;
                    Transform o = t != null ? t.Find(PropLocationController.OffsetNames[p]) : null;
                    if (o != null) for (int c = 0; c < o.childCount; c++) props.Add(o.GetChild(c));
                }
                foreach (PropLocationController.Attachment a in pl.attachOnStart) if (a.prop != null && !props.Contains(a.prop)) props.Add(a.prop);
            }
            foreach (Transform p in props)
            {
                var type = p.GetComponent<PropTypeController>();
                Transform prop = p;
                if (type == null)
                    Add(r, 4, KindCheckStatus.Fail, "prop " + Name(p) + " has no PropTypeController", p, "add a PropTypeController (Object, Chair or Hand)",
                        () => { Undo.RegisterCreatedObjectUndo(prop.gameObject.AddComponent<PropTypeController>(), "Add PropTypeController"); });
                else if (type.propType == PropType.None)
                    Add(r, 4, KindCheckStatus.Fail, "prop " + Name(p) + " has type None", p, "set its type (Object, Chair or Hand)",
                        () => { Undo.RecordObject(type, "Type prop"); type.propType = PropType.Object; EditorUtility.SetDirty(type); });
                else Add(r, 4, KindCheckStatus.Pass, "prop " + Name(p) + " typed " + type.propType, p);
            }
            if (props.Count == 0) Add(r, 4, KindCheckStatus.Pass, "no props attached", null);
            foreach (PropTypeController t in UnityEngine.Object.FindObjectsOfType<PropTypeController>())
            {
                string n = t.name.ToLowerInvariant();
                if ((n.Contains("chair") || n.Contains("seat") || n.Contains("stool")) && t.propType != PropType.Chair)
                {
                    PropTypeController type = t;
                    Add(r, 5, KindCheckStatus.Warning, "prop " + Name(t) + " looks like a chair but is typed " + t.propType + " (the hips will not sit on it)", t, "type it Chair",
                        () => { Undo.RecordObject(type, "Type chair"); type.propType = PropType.Chair; EditorUtility.SetDirty(type); });
                }
                else if (t.propType == PropType.Chair) Add(r, 5, KindCheckStatus.Pass, "chair " + Name(t) + " typed Chair", t);
            }
        }

        // 6. SimplePoseTransfer.
        static void CheckTransfers(List<KindCheckResult> r, bool playing)
        {
            foreach (SimplePoseTransfer t in UnityEngine.Object.FindObjectsOfType<SimplePoseTransfer>())
            {
                if (t.sourceAvatar == null) { Add(r, 6, KindCheckStatus.Fail, Name(t) + " has no source avatar", t, "assign the driving avatar's Animator"); continue; }
                int empty = 0;
                foreach (SimplePoseTransfer.TargetEntry x in t.targets) if (x == null || x.animator == null) empty++;
                if (empty > 0) Add(r, 6, KindCheckStatus.Warning, Name(t) + " has " + empty + " target(s) without an Animator", t, "assign them or remove the entries");
                if (!playing) { Add(r, 6, KindCheckStatus.Skipped, Name(t) + ": initialisation is checked in Play mode", t); continue; }
                SimplePoseTransfer transfer = t;
                if (t.IsInitialized) Add(r, 6, KindCheckStatus.Pass, Name(t) + " initialised (" + t.targets.Length + " targets)", t);
                else Add(r, 6, KindCheckStatus.Fail, Name(t) + " has targets without a hub (added after Play started, or their setup failed)", t, "call Init()", () => transfer.Init());
            }
        }

        // 7. Leg bones mapped on every avatar.
        static void CheckLegs(List<KindCheckResult> r, CustomRetargetingScript[] scripts)
        {
            var animators = new List<Animator>();
            foreach (CustomRetargetingScript s in scripts) if (s.targetAnimator != null && !animators.Contains(s.targetAnimator)) animators.Add(s.targetAnimator);
            foreach (SimplePoseTransfer t in UnityEngine.Object.FindObjectsOfType<SimplePoseTransfer>())
            {
                if (t.sourceAvatar != null && !animators.Contains(t.sourceAvatar)) animators.Add(t.sourceAvatar);
                foreach (SimplePoseTransfer.TargetEntry x in t.targets) if (x != null && x.animator != null && !animators.Contains(x.animator)) animators.Add(x.animator);
            }
            foreach (Animator a in animators)
            {
                if (!a.isHuman) { Add(r, 7, KindCheckStatus.Fail, Name(a) + " is not a humanoid Animator", a, "set the model's Rig to Humanoid and assign the Avatar"); continue; }
                var missing = new List<string>();
                foreach (HumanBodyBones b in LegBones) if (a.GetBoneTransform(b) == null) missing.Add(b.ToString());
                if (missing.Count > 0)
                    Add(r, 7, KindCheckStatus.Fail, Name(a) + " does not map " + string.Join(", ", missing.ToArray()) + ": the hips will float or sink", a, "map the legs in the Avatar (Rig > Configure...)");
                else Add(r, 7, KindCheckStatus.Pass, Name(a) + " maps hips and both legs", a);
            }
        }

        // 8. Finger muscles: where the fingers are driven (MuscleData or FingerShapedController), each hand enabled and mapped.
        static void CheckFingers(List<KindCheckResult> r, CustomRetargetingScript[] scripts)
        {
            foreach (CustomRetargetingScript s in scripts)
            {
                var shaped = s.GetComponent<FingerShapedController>();
                bool driven = s.fingerCopyMode == FingerCopyMode.MuscleData || (shaped != null && shaped.enabled);
                if (!driven) { Add(r, 8, KindCheckStatus.Pass, Name(s) + ": fingers copied (" + s.fingerCopyMode + "), no finger muscles needed", s); continue; }
                for (int h = 0; h < 2; h++)
                {
                    string hand = h == 0 ? "left" : "right";
                    if (shaped != null && !(h == 0 ? shaped.leftHandEnabled : shaped.rightHandEnabled))
                    {
                        int hh = h;
                        Add(r, 8, KindCheckStatus.Warning, Name(s) + ": " + hand + " hand's finger muscles are disabled", shaped, "enable " + hand + "HandEnabled",
                            () => { Undo.RecordObject(shaped, "Enable hand"); if (hh == 0) shaped.leftHandEnabled = true; else shaped.rightHandEnabled = true; EditorUtility.SetDirty(shaped); });
                        continue;
                    }
                    HumanBodyBones index = h == 0 ? HumanBodyBones.LeftIndexProximal : HumanBodyBones.RightIndexProximal;
                    if (s.targetAnimator != null && s.targetAnimator.isHuman && s.targetAnimator.GetBoneTransform(index) == null)
                        Add(r, 8, KindCheckStatus.Warning, Name(s) + ": the avatar maps no " + hand + " finger bones, so its finger muscles do nothing", s.targetAnimator, "map the fingers in the Avatar (Rig > Configure... > Left/Right Hand)");
                    else Add(r, 8, KindCheckStatus.Pass, Name(s) + ": " + hand + " hand's finger muscles enabled", s);
                }
            }
        }

        static Type FindType(string name)
        {
            foreach (Assembly asm in AppDomain.CurrentDomain.GetAssemblies())
                foreach (Type t in SafeTypes(asm)) if (t.Name == name) return t;
            return null;
        }

        static Type[] SafeTypes(Assembly asm)
        {
            try { return asm.GetTypes(); }
            catch (ReflectionTypeLoadException) { return new Type[0]; }
        }
    }
}
