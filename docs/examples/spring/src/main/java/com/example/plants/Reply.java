package com.example.plants;

import com.fasterxml.jackson.annotation.JsonInclude;

/** The writer's answer: {@code plant} with status 200, {@code error} with status 400. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Reply(int status, Plant plant, ErrorBody error) {

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Plant(String name, String tag) {}

  /** 4000 not a NewPlant, 4001 not JSON, 4009 the id exists with another name or tag. */
  public record ErrorBody(int error, String message) {}
}
