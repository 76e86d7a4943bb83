package io.durablejournal.flinkagents.demo;

import java.util.Objects;

/** A support request: the input record of the demo agent (a Flink POJO). */
public class SupportRequest {
    public String id;
    public String user;
    public String question;

    public SupportRequest() {}

    public SupportRequest(String id, String user, String question) {
        this.id = id;
        this.user = user;
        this.question = question;
    }

    /** Request {@code i}: users {@code user_0 .. user_2} in turn (the {@code _} is on purpose). */
    public static SupportRequest number(int i) {
        return new SupportRequest(id(i), "user_" + (i % 3), "question " + i);
    }

    public static String id(int i) {
        return String.format("req-%02d", i);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SupportRequest)) {
            return false;
        }
        SupportRequest other = (SupportRequest) o;
        return Objects.equals(id, other.id) && Objects.equals(user, other.user) && Objects.equals(question, other.question);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, user, question);
    }

    @Override
    public String toString() {
        return id + "(" + user + ": " + question + ")";
    }
}
