import Foundation
import StrataCore

// The class hierarchy of the conformance suite: `Component` with two subclasses, one of
// which has a subclass of its own, held by a `Panel`.

/// A panel that owns components of every class.
@Model final class Panel {
    var label: String
    @Relationship(deleteRule: .cascade, inverse: \Component.panel) var components: [Component] = []

    init(label: String) { self.label = label }
}

/// The root class: its code is unique across every class of the hierarchy.
@Model class Component {
    #Unique<Component>([\.code])
    #Index<Component>([\.name])

    var code: String
    var name: String
    var panel: Panel?

    init(code: String, name: String) {
        self.code = code
        self.name = name
    }
}

/// A subclass with an initializer of its own and attributes with and without initial values.
@Model class PushButton: Component {
    var title: String
    var taps = 0

    init(code: String, name: String, title: String) {
        self.title = title
        super.init(code: code, name: name)
    }
}

/// A subclass of a subclass, with a relationship of its own.
@Model final class IconButton: PushButton {
    var symbol: String
    @Relationship(deleteRule: .cascade) var badge: Badge?

    init(code: String, name: String, title: String, symbol: String) {
        self.symbol = symbol
        super.init(code: code, name: name, title: title)
    }
}

/// A subclass without an initializer: it inherits `Component`'s.
@Model final class Switch: Component {
    var isOn = false
}

/// What an icon button shows; deleted with it.
@Model final class Badge {
    var text: String

    init(text: String) { self.text = text }
}
