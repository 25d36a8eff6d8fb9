#ifndef STRATA_CJSONC_SHIM_H
#define STRATA_CJSONC_SHIM_H

#include <json-c/json.h>

// The first member of an object (NULL when it has none): json_object_object_foreach's start, which Swift cannot import.
static inline struct lh_entry *strata_json_object_first_member(struct json_object *object) {
    return json_object_get_object(object)->head;
}

// The member after `member` (NULL at the end): json_object_object_foreach's step.
static inline struct lh_entry *strata_json_member_next(struct lh_entry *member) {
    return member->next;
}

// The key of a member, as json_object_object_foreach binds it.
static inline const char *strata_json_member_key(struct lh_entry *member) {
    return (const char *)member->k;
}

// The value of a member, as json_object_object_foreach binds it.
static inline struct json_object *strata_json_member_value(struct lh_entry *member) {
    return (struct json_object *)member->v;
}

#endif
