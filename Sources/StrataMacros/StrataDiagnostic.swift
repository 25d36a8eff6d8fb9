import SwiftDiagnostics

/// The errors Strata's macros report; each states the rule it enforces and how to fix the code.
enum StrataDiagnostic: DiagnosticMessage {
    case modelRequiresClass(kind: String)
    case multipleBindings
    case letProperty(name: String)
    case missingTypeAnnotation(name: String)
    case propertyObservers(name: String)
    case lazyProperty(name: String)
    case transientRequiresDefaultValue(name: String)
    case conflictingAttributes(name: String, first: String, second: String)
    case keyPathNotPersisted(macro: String, keyPath: String, model: String, reason: String)
    case duplicateAnnotation(macro: String)
    case annotationOutsideClass(macro: String)
    case inverseOnBothSides(name: String, other: String)
    case modelActorRequiresActor(kind: String)
    case modelActorMemberDeclared(name: String)

    var message: String {
        switch self {
        case .modelRequiresClass(let kind):
            switch kind {
            case "extension":
                "'@Model' can only be applied to a class; apply it to the class declaration, not to an extension"
            case "struct", "enum", "actor", "protocol":
                "'@Model' can only be applied to a class; declare this \(kind) as a class"
            default:
                "'@Model' can only be applied to a class"
            }
        case .multipleBindings:
            "a '@Model' class must declare one persisted property per 'var'; split this declaration into one 'var' per property"
        case .letProperty(let name):
            "stored properties of a '@Model' class must be 'var'; declare '\(name)' with 'var'"
        case .missingTypeAnnotation(let name):
            "persisted property '\(name)' has no type: annotate it, as in 'var \(name): Type', or give it an initial value"
        case .propertyObservers(let name):
            "persisted property '\(name)' cannot have 'willSet' or 'didSet' observers; move that code into a method, or mark the property '@Transient'"
        case .lazyProperty(let name):
            "persisted property '\(name)' cannot be 'lazy'; remove 'lazy', or mark the property '@Transient'"
        case .transientRequiresDefaultValue(let name):
            "'@Transient' property '\(name)' must have a default value, because it is reset to that value when the model is fetched; add an initial value"
        case .conflictingAttributes(let name, let first, let second):
            "property '\(name)' cannot be both '\(first)' and '\(second)'; keep only one of them"
        case .keyPathNotPersisted(let macro, let keyPath, let model, let reason):
            "'#\(macro)' key path '\(keyPath)' must name a persisted stored property of '\(model)', but \(reason); use a stored 'var' that is not '@Transient'"
        case .duplicateAnnotation(let macro):
            "a '@Model' class can contain only one '#\(macro)'; pass all of its arguments to a single '#\(macro)'"
        case .annotationOutsideClass(let macro):
            "'#\(macro)' can only be used directly inside the body of a '@Model' class; move it into the class"
        case .inverseOnBothSides(let name, let other):
            "'inverse:' must be named on one side of a relationship only, but '\(name)' and '\(other)' name each other; remove 'inverse:' from '\(name)'"
        case .modelActorRequiresActor(let kind):
            kind == "class" || kind == "struct" || kind == "enum"
                ? "'@ModelActor' can only be applied to an actor; declare this \(kind) as an actor"
                : "'@ModelActor' can only be applied to an actor declaration, not to this \(kind)"
        case .modelActorMemberDeclared(let name):
            "'@ModelActor' generates '\(name)', so the actor cannot declare it too; remove this declaration"
        }
    }

    var diagnosticID: MessageID {
        let id: String = switch self {
        case .modelRequiresClass: "modelRequiresClass"
        case .multipleBindings: "multipleBindings"
        case .letProperty: "letProperty"
        case .missingTypeAnnotation: "missingTypeAnnotation"
        case .propertyObservers: "propertyObservers"
        case .lazyProperty: "lazyProperty"
        case .transientRequiresDefaultValue: "transientRequiresDefaultValue"
        case .conflictingAttributes: "conflictingAttributes"
        case .keyPathNotPersisted: "keyPathNotPersisted"
        case .duplicateAnnotation: "duplicateAnnotation"
        case .annotationOutsideClass: "annotationOutsideClass"
        case .inverseOnBothSides: "inverseOnBothSides"
        case .modelActorRequiresActor: "modelActorRequiresActor"
        case .modelActorMemberDeclared: "modelActorMemberDeclared"
        }
        return MessageID(domain: "StrataMacros", id: id)
    }

    var severity: DiagnosticSeverity { .error }
}

/// The fix-its offered with ``StrataDiagnostic``.
enum StrataFixIt: FixItMessage {
    case replaceWithClass(keyword: String)
    case replaceLetWithVar
    case addNilDefaultValue
    case removeLazy
    case removeInverse
    case replaceKeyword(String, with: String)
    case removeDeclaration(name: String)

    var message: String {
        switch self {
        case .replaceWithClass(let keyword): "Replace '\(keyword)' with 'class'"
        case .replaceLetWithVar: "Replace 'let' with 'var'"
        case .addNilDefaultValue: "Add '= nil'"
        case .removeLazy: "Remove 'lazy'"
        case .removeInverse: "Remove 'inverse:'"
        case .replaceKeyword(let keyword, let replacement): "Replace '\(keyword)' with '\(replacement)'"
        case .removeDeclaration(let name): "Remove this declaration of '\(name)'"
        }
    }

    var fixItID: MessageID {
        let id: String = switch self {
        case .replaceWithClass: "replaceWithClass"
        case .replaceLetWithVar: "replaceLetWithVar"
        case .addNilDefaultValue: "addNilDefaultValue"
        case .removeLazy: "removeLazy"
        case .removeInverse: "removeInverse"
        case .replaceKeyword: "replaceKeyword"
        case .removeDeclaration: "removeDeclaration"
        }
        return MessageID(domain: "StrataMacros", id: id)
    }
}
