import staticPart from './static.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';
import { testMarkers } from '../../../test/support/markers.js';

// The recorded servers of this folder belong to the dynamic part (their expect.json pins its message ids).
testDetectorFolder('X-7', [staticPart], import.meta.url, { skipServerFixtures: true });
testMarkers('X-7', [staticPart], import.meta.url);
