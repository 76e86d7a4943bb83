package io.durablejournal.demo;

/** One request to the agent: a Flink POJO (public fields, no-arg constructor). */
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
    public String toString() {
        return id + "(" + user + ")";
    }
}
