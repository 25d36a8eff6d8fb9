import MacroTesting
import StrataMacros
import Testing

@Suite(
    .macros([
        "Model": ModelMacro.self, "_PersistedProperty": PersistedPropertyMacro.self,
        "Attribute": AttributeMacro.self, "Relationship": RelationshipMacro.self,
        "Transient": TransientMacro.self, "Unique": UniqueMacro.self, "Index": IndexMacro.self,
    ])
)
struct TransientMacroTests {
    @Test func expandsToNothing() {
        assertMacro {
            #"""
            final class Trip {
                @Transient var viewCount = 0
                @Transient var isExpanded: Bool = false
            }
            """#
        } expansion: {
            """
            final class Trip {
                var viewCount = 0
                var isExpanded: Bool = false
            }
            """
        }
    }

    @Test func rejectsOptionalWithoutDefaultValue() {
        assertMacro {
            #"""
            final class Trip {
                @Transient var cachedSummary: String?
            }
            """#
        } diagnostics: {
            """
            final class Trip {
                @Transient var cachedSummary: String?
                               ┬─────────────────────
                               ╰─ 🛑 '@Transient' property 'cachedSummary' must have a default value, because it is reset to that value when the model is fetched; add an initial value
                                  ✏️ Add '= nil'
            }
            """
        } fixes: {
            """
            final class Trip {
                @Transient var cachedSummary: String? = nil
            }
            """
        } expansion: {
            """
            final class Trip {
                var cachedSummary: String? = nil
            }
            """
        }
    }

    @Test func rejectsNonOptionalWithoutDefaultValue() {
        assertMacro {
            #"""
            final class Trip {
                @Transient var viewCount: Int
            }
            """#
        } diagnostics: {
            """
            final class Trip {
                @Transient var viewCount: Int
                               ┬─────────────
                               ╰─ 🛑 '@Transient' property 'viewCount' must have a default value, because it is reset to that value when the model is fetched; add an initial value
            }
            """
        }
    }

    @Test func acceptsComputedProperty() {
        assertMacro {
            #"""
            final class Trip {
                @Transient var summary: String { "" }
            }
            """#
        } expansion: {
            """
            final class Trip {
                var summary: String { "" }
            }
            """
        }
    }
}
