/**
 * Thrown for unreadable or unsupported glTF/VRM input and bad arguments. The message starts with the
 * file name and names the field, either as a JSON pointer into the glTF JSON
 * (`Xbot.gltf: /skins/0/joints/3: node index 999 out of range (67 nodes)`, RFC 6901) or as a dotted
 * path (`Foo.vrm: extensions.VRM.humanoid.humanBones[3].node: ...`).
 */
export class GltfError extends Error {
  readonly fileName: string;
  constructor(fileName: string, message: string, options?: { cause?: unknown }) {
    super(`${fileName}: ${message}`, options);
    this.name = 'GltfError';
    this.fileName = fileName;
  }
}
