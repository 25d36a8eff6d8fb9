#if !canImport(Darwin)
import Foundation

/// A recorder of undo and redo operations, with the API of Foundation's `UndoManager` on
/// Apple platforms, which Foundation on Linux lacks.
///
/// Register the inverse of each change with ``registerUndo(withTarget:handler:)``. The
/// actions registered between ``beginUndoGrouping()`` and ``endUndoGrouping()`` form one
/// group, and ``undo()`` undoes a whole group, last action first. Actions registered while
/// undoing form a redo group; those registered while redoing form an undo group again. A new
/// action registered otherwise clears the redo stack.
///
/// With ``groupsByEvent`` (the default), a registration outside any group opens one. On Apple
/// platforms the run loop closes it at the end of the event; there is no such event on a
/// server, so it stays open until ``endUndoGrouping()``, ``undo()``, or a
/// ``ModelContext``'s `processPendingChanges()` or `save()` closes it.
///
/// An undo manager is not thread-safe: use it from one thread or actor, like its context.
/// ```swift
/// let undoManager = UndoManager()
/// context.undoManager = undoManager
/// trip.name = "Bergen"
/// context.processPendingChanges()
/// undoManager.undo()  // trip.name is back
/// ```
open class UndoManager {
    /// One registered action; its target is held weakly, so the manager keeps nothing alive.
    private struct Action {
        weak var target: AnyObject?
        let run: (AnyObject) -> Void
    }

    /// A closed group of actions, with the action name it was given.
    private struct Group {
        var actions: [Action] = []
        var name = ""
    }

    private var undoStack: [Group] = []
    private var redoStack: [Group] = []
    /// Open groups, outermost first; a nested group's actions join its parent when it closes.
    private var openGroups: [Group] = []
    private var registrationDisabled = 0
    /// Whether the outermost open group was opened by a registration, under ``groupsByEvent``.
    private var eventGroupIsOpen = false

    /// Creates an undo manager with empty stacks.
    public init() {}

    // MARK: Notifications

    /// Posted before ``undo()`` runs its group; the object is the undo manager.
    public static let willUndoChangeNotification = Notification.Name("NSUndoManagerWillUndoChangeNotification")
    /// Posted after ``undo()`` ran its group.
    public static let didUndoChangeNotification = Notification.Name("NSUndoManagerDidUndoChangeNotification")
    /// Posted before ``redo()`` runs its group.
    public static let willRedoChangeNotification = Notification.Name("NSUndoManagerWillRedoChangeNotification")
    /// Posted after ``redo()`` ran its group.
    public static let didRedoChangeNotification = Notification.Name("NSUndoManagerDidRedoChangeNotification")
    /// Posted after ``beginUndoGrouping()`` opened a group.
    public static let didOpenUndoGroupNotification = Notification.Name("NSUndoManagerDidOpenUndoGroupNotification")
    /// Posted before ``endUndoGrouping()`` closes a group.
    public static let willCloseUndoGroupNotification = Notification.Name("NSUndoManagerWillCloseUndoGroupNotification")
    /// Posted after ``endUndoGrouping()`` closed a group.
    public static let didCloseUndoGroupNotification = Notification.Name("NSUndoManagerDidCloseUndoGroupNotification")

    // MARK: State

    /// Whether there is a group to undo (an open group with actions counts).
    open var canUndo: Bool { !undoStack.isEmpty || openGroups.contains { !$0.actions.isEmpty } }
    /// Whether there is a group to redo.
    open var canRedo: Bool { !redoStack.isEmpty }
    /// Whether ``undo()`` is running a group.
    open private(set) var isUndoing = false
    /// Whether ``redo()`` is running a group.
    open private(set) var isRedoing = false
    /// How many groups are open.
    open var groupingLevel: Int { openGroups.count }
    /// Whether a registration outside any group opens one. Defaults to `true`.
    open var groupsByEvent = true
    /// How many groups the undo stack keeps; the oldest go first. `0`, the default, keeps all.
    open var levelsOfUndo = 0 {
        didSet { trim() }
    }
    /// Whether registrations are recorded (see ``disableUndoRegistration()``).
    open var isUndoRegistrationEnabled: Bool { registrationDisabled == 0 }

    /// The name of the group ``undo()`` would undo, or `""`.
    open var undoActionName: String { openGroups.first.flatMap { $0.actions.isEmpty ? nil : $0.name } ?? undoStack.last?.name ?? "" }
    /// The name of the group ``redo()`` would redo, or `""`.
    open var redoActionName: String { redoStack.last?.name ?? "" }
    /// "Undo" followed by ``undoActionName``, for a menu.
    open var undoMenuItemTitle: String { undoMenuTitle(forUndoActionName: undoActionName) }
    /// "Redo" followed by ``redoActionName``, for a menu.
    open var redoMenuItemTitle: String { redoMenuTitle(forUndoActionName: redoActionName) }

    /// "Undo" followed by `actionName`.
    open func undoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Undo" : "Undo \(actionName)"
    }

    /// "Redo" followed by `actionName`.
    open func redoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Redo" : "Redo \(actionName)"
    }

    /// Names the group being recorded, or else the last group on the undo stack (the redo
    /// stack while undoing).
    open func setActionName(_ actionName: String) {
        if !openGroups.isEmpty {
            openGroups[openGroups.count - 1].name = actionName
        } else if isUndoing, !redoStack.isEmpty {
            redoStack[redoStack.count - 1].name = actionName
        } else if !undoStack.isEmpty {
            undoStack[undoStack.count - 1].name = actionName
        }
    }

    // MARK: Registering

    /// Records `handler` as the undo of a change to `target`.
    ///
    /// The manager holds `target` weakly: an action whose target is gone does nothing.
    open func registerUndo<TargetType: AnyObject>(withTarget target: TargetType, handler: @escaping (TargetType) -> Void) {
        guard isUndoRegistrationEnabled else { return }
        let action = Action(target: target) { handler($0 as! TargetType) }
        if isUndoing {
            // An action registered while undoing belongs to the redo group being built.
            redoStack[redoStack.count - 1].actions.append(action)
            return
        }
        if isRedoing {
            undoStack[undoStack.count - 1].actions.append(action)
            return
        }
        if openGroups.isEmpty {
            guard groupsByEvent else {
                StrataLog.logger.error("UndoManager: an action was registered outside any group while groupsByEvent is false; it was dropped")
                return
            }
            beginUndoGrouping()
            eventGroupIsOpen = true
        }
        openGroups[openGroups.count - 1].actions.append(action)
        redoStack.removeAll()
    }

    /// Stops recording registrations until a matching ``enableUndoRegistration()``.
    open func disableUndoRegistration() { registrationDisabled += 1 }

    /// Resumes recording after ``disableUndoRegistration()``.
    open func enableUndoRegistration() {
        guard registrationDisabled > 0 else {
            StrataLog.logger.error("UndoManager: enableUndoRegistration() without a matching disableUndoRegistration()")
            return
        }
        registrationDisabled -= 1
    }

    // MARK: Grouping

    /// Opens a group; groups nest.
    open func beginUndoGrouping() {
        openGroups.append(Group())
        NotificationCenter.default.post(name: Self.didOpenUndoGroupNotification, object: self)
    }

    /// Closes the innermost open group. A closed outermost group with actions goes on the
    /// undo stack; an empty one is dropped. Without an open group, this logs and does nothing.
    open func endUndoGrouping() {
        guard let group = openGroups.last else {
            StrataLog.logger.error("UndoManager: endUndoGrouping() without an open group")
            return
        }
        NotificationCenter.default.post(name: Self.willCloseUndoGroupNotification, object: self)
        openGroups.removeLast()
        if openGroups.isEmpty {
            eventGroupIsOpen = false
            if !group.actions.isEmpty {
                undoStack.append(group)
                trim()
            }
        } else {
            openGroups[openGroups.count - 1].actions += group.actions
            if openGroups[openGroups.count - 1].name.isEmpty { openGroups[openGroups.count - 1].name = group.name }
        }
        NotificationCenter.default.post(name: Self.didCloseUndoGroupNotification, object: self)
    }

    // MARK: Undoing and redoing

    /// Closes the open group if it is the only one, then undoes the last group.
    ///
    /// With more than one group open, this logs the misuse and does nothing.
    open func undo() {
        if openGroups.count == 1 { endUndoGrouping() }
        guard openGroups.isEmpty else {
            StrataLog.logger.error("UndoManager: undo() with \(openGroups.count) nested groups open; close them first")
            return
        }
        undoNestedGroup()
    }

    /// Undoes the last group on the undo stack; its actions' registrations form a redo group.
    open func undoNestedGroup() {
        guard !isUndoing, !isRedoing, let group = undoStack.popLast() else { return }
        NotificationCenter.default.post(name: Self.willUndoChangeNotification, object: self)
        redoStack.append(Group(name: group.name))
        isUndoing = true
        Self.replay(group)
        isUndoing = false
        if redoStack.last?.actions.isEmpty == true { redoStack.removeLast() }
        NotificationCenter.default.post(name: Self.didUndoChangeNotification, object: self)
    }

    /// Redoes the last undone group; its actions' registrations form an undo group again.
    open func redo() {
        guard !isUndoing, !isRedoing, openGroups.isEmpty, let group = redoStack.popLast() else { return }
        NotificationCenter.default.post(name: Self.willRedoChangeNotification, object: self)
        undoStack.append(Group(name: group.name))
        isRedoing = true
        Self.replay(group)
        isRedoing = false
        if undoStack.last?.actions.isEmpty == true { undoStack.removeLast() }
        trim()
        NotificationCenter.default.post(name: Self.didRedoChangeNotification, object: self)
    }

    /// Runs `group`'s actions, last first, skipping those whose target is gone.
    private static func replay(_ group: Group) {
        for action in group.actions.reversed() {
            if let target = action.target { action.run(target) }
        }
    }

    // MARK: Clearing

    /// Empties both stacks and drops the open groups' actions.
    open func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        for index in openGroups.indices { openGroups[index].actions.removeAll() }
    }

    /// Removes every action registered with `target`.
    open func removeAllActions(withTarget target: AnyObject) {
        func keep(_ action: Action) -> Bool { action.target.map { $0 !== target } ?? false }
        undoStack = undoStack.map { Group(actions: $0.actions.filter(keep), name: $0.name) }.filter { !$0.actions.isEmpty }
        redoStack = redoStack.map { Group(actions: $0.actions.filter(keep), name: $0.name) }.filter { !$0.actions.isEmpty }
        for index in openGroups.indices { openGroups[index].actions.removeAll { !keep($0) } }
    }

    /// Closes the group a registration opened under ``groupsByEvent``, if it is the only
    /// open group: the end of an "event" for a context, which has no run loop to end it.
    package final func closeEventGroup() {
        guard eventGroupIsOpen, openGroups.count == 1 else { return }
        endUndoGrouping()
    }

    private final func trim() {
        guard levelsOfUndo > 0, undoStack.count > levelsOfUndo else { return }
        undoStack.removeFirst(undoStack.count - levelsOfUndo)
    }
}
#endif
