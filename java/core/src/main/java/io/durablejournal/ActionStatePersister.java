package io.durablejournal;

/** Receives the ActionState after every persisted journal mutation (spec §2.1). */
@FunctionalInterface
public interface ActionStatePersister {
    void persist(ActionState state) throws Exception;
}
