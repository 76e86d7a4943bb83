package io.durablejournal.demo;

import java.util.Objects;

/**
 * One request to the agent: a Flink POJO (public fields, no-arg constructor), the input of both
 * operators' agents. Equal when its fields are (Flink Agents compares input events).
 */
public class Request {
    public String id;
    public String user;
    public String text;

    public Request() {}

    public Request(String id, String user, String text) {
        this.id = id;
        this.user = user;
        this.text = text;
    }

    @Override
    public boolean equals(Object o) {
        if (o == null || o.getClass() != getClass()) {
            return false;
        }
        Request other = (Request) o;
        return Objects.equals(id, other.id) && Objects.equals(user, other.user) && Objects.equals(text, other.text);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, user, text);
    }

    @Override
    public String toString() {
        return id + "(" + user + ": " + text + ")";
    }
}
