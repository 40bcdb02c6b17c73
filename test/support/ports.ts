export { freePorts } from "../../scripts/src/free-ports.js";
