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
struct AttributeMacroTests {
    @Test func expandsToNothing() {
        assertMacro {
            #"""
            final class Trip {
                @Attribute(.unique, originalName: "title") var name: String
            }
            """#
        } expansion: {
            """
            final class Trip {
                var name: String
            }
            """
        }
    }

    @Test func rejectsAttributeWithRelationship() {
        assertMacro {
            #"""
            final class Trip {
                @Attribute(.unique) @Relationship(deleteRule: .cascade) var owner: Person?
            }
            """#
        } diagnostics: {
            """
            final class Trip {
                @Attribute(.unique) @Relationship(deleteRule: .cascade) var owner: Person?
                ┬──────────────────
                ╰─ 🛑 property 'owner' cannot be both '@Attribute' and '@Relationship'; keep only one of them
            }
            """
        }
    }

    @Test func rejectsAttributeWithTransient() {
        assertMacro {
            #"""
            final class Trip {
                @Transient @Attribute(.ephemeral) var isSelected = false
            }
            """#
        } diagnostics: {
            """
            final class Trip {
                @Transient @Attribute(.ephemeral) var isSelected = false
                           ┬─────────────────────
                           ╰─ 🛑 property 'isSelected' cannot be both '@Attribute' and '@Transient'; keep only one of them
            }
            """
        }
    }
}
